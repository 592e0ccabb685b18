import {
  type ConversationOrigin,
  type ConversationState,
  checkOriginAgainst,
  conversationSessionKey,
  type EarlierTurns,
  type Message,
  noticesOf,
  type TurnContext,
  type TurnResult,
  transcriptTurnIds,
  turnContext,
  turnMessages,
} from '../../core';
import type { InProcessExecutor, RunTurnArgs } from '../in-process-executor';
import type { ConversationStore } from './conversation-store';

/**
 * An ended turn as later requests of its conversation send it, read from the journal. A turn that
 * never finished (its host was lost for good) left nothing to send.
 */
export async function journaledTurnContext(
  executor: InProcessExecutor,
  turnId: string,
): Promise<TurnContext> {
  const result = await executor.finishedResult(turnId);
  return result
    ? turnContext(result.events, noticesOf(result.outputs))
    : { messages: [], replacesEarlier: false };
}

/** The messages of a conversation's turns before `turnNumber`, as its requests send them (see `EarlierTurns`). */
export function earlierJournaledTurns({
  earlierTurns,
  executor,
  conversationId,
  turnNumber,
  incarnation,
  origin,
  store,
}: {
  earlierTurns: EarlierTurns;
  executor: InProcessExecutor;
  conversationId: string;
  turnNumber: number;
  /** Where the conversations a branch came from are kept: each is checked before its turns are read. */
  store?: Pick<ConversationStore, 'load'>;
  /** Which conversation of the id (a deleted one's turns are not this one's). */
  incarnation: string | undefined;
  /** A branch's: the turns of the conversations it came from (see `ConversationOrigin`). */
  origin: ConversationOrigin | undefined;
}): Promise<Message[]> {
  return earlierTurns.before({
    conversationId,
    turnNumber,
    ...(incarnation ? { incarnation } : {}),
    ...(origin ? { origin } : {}),
    read: (turnId) => journaledTurnContext(executor, turnId),
    // A source deleted (or its id begun again) is not read as if it were the one the branch came from.
    ...(store && {
      checkOrigin: async (from: ConversationOrigin[number]) => {
        const { state } = await store.load(from.conversationId);
        checkOriginAgainst(from, state ? (state.incarnation ?? null) : undefined);
      },
    }),
  });
}

/** What of a conversation's state its turns run with. */
export type TurnArgsState = Pick<ConversationState, 'conversationId' | 'incarnation' | 'origin'>;

/**
 * What a conversation's turn `turnNumber` runs with besides its id and input: the earlier turns
 * (read when its requests need them), and the key its calls' sessions share with the other turns.
 */
export function conversationTurnArgs({
  earlierTurns,
  executor,
  state,
  turnNumber,
  store,
}: {
  earlierTurns: EarlierTurns;
  executor: InProcessExecutor;
  state: TurnArgsState;
  turnNumber: number;
  store?: Pick<ConversationStore, 'load'>;
}): Pick<RunTurnArgs, 'earlier' | 'session'> {
  const { conversationId, incarnation, origin } = state;
  return {
    earlier: () =>
      earlierJournaledTurns({
        earlierTurns,
        executor,
        conversationId,
        turnNumber,
        incarnation,
        origin,
        ...(store && { store }),
      }),
    session: { key: conversationSessionKey({ conversationId, incarnation }) },
  };
}

/**
 * Every message of a conversation's ended turns, in order (the running turn's are not in it yet); a
 * branch's begins with those of the turns it came after.
 */
export async function journaledTranscript({
  state,
  result,
}: {
  state: Pick<ConversationState, 'conversationId' | 'turnCount' | 'running' | 'origin'>;
  result: (turnId: string) => Promise<TurnResult>;
}): Promise<Message[]> {
  const messages: Message[] = [];
  for (const turnId of transcriptTurnIds(state)) messages.push(...turnMessages(await result(turnId)));
  return messages;
}

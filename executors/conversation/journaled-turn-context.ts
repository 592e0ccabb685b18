import {
  type ConversationState,
  conversationSessionKey,
  type EarlierTurns,
  type Message,
  noticesOf,
  type TurnContext,
  turnContext,
} from '../../core';
import type { InProcessExecutor, RunTurnArgs } from '../in-process-executor';

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
}: {
  earlierTurns: EarlierTurns;
  executor: InProcessExecutor;
  conversationId: string;
  turnNumber: number;
  /** Which conversation of the id (a deleted one's turns are not this one's). */
  incarnation: string | undefined;
}): Promise<Message[]> {
  return earlierTurns.before({
    conversationId,
    turnNumber,
    ...(incarnation ? { incarnation } : {}),
    read: (turnId) => journaledTurnContext(executor, turnId),
  });
}

/**
 * What a conversation's turn `turnNumber` runs with besides its id and input: the earlier turns
 * (read when its requests need them), and the key its calls' sessions share with the other turns.
 */
export function conversationTurnArgs({
  earlierTurns,
  executor,
  state,
  turnNumber,
}: {
  earlierTurns: EarlierTurns;
  executor: InProcessExecutor;
  state: Pick<ConversationState, 'conversationId' | 'incarnation'>;
  turnNumber: number;
}): Pick<RunTurnArgs, 'earlier' | 'session'> {
  const { conversationId, incarnation } = state;
  return {
    earlier: () => earlierJournaledTurns({ earlierTurns, executor, conversationId, turnNumber, incarnation }),
    session: { key: conversationSessionKey({ conversationId, incarnation }) },
  };
}

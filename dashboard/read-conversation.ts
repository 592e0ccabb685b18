import type { ConversationClient } from '../client/conversation-client';
import { type ConversationState, type Message, turnMessages } from '../core';
import type { ConversationTurnBody } from './conversation-schemas';
import type { EndedTurnResults } from './ended-turn-results';
import { reasonOf } from './error-reason';
import { glanceMessage } from './glance-message';
import { type UpstreamContext, upstreamError } from './upstream-error';

/** How many of its latest turns a conversation's page reads and shows: one of hundreds stays cheap. */
export const shownTurns = 20;

export interface ConversationView {
  state: ConversationState;
  /** The number of the first turn shown (the turns before it are not read). */
  firstTurn: number;
  turns: ConversationTurnBody[];
  transcript: Message[];
  transcriptProblem?: string;
}

/**
 * A conversation as its page shows it: its queue, its latest turns with their status, and the
 * transcript of those that ended, at a glance (`glanceMessage`). Each ended turn is read once (`EndedTurnResults`). A turn with no
 * result to read (terminated, or its history gone past retention) is shown as such and left out of
 * the transcript, which says so, rather than failing the whole answer.
 */
export async function readConversation({
  conversations,
  conversationId,
  upstream,
  ended,
}: {
  conversations: ConversationClient;
  conversationId: string;
  upstream: UpstreamContext;
  ended: EndedTurnResults;
}): Promise<ConversationView> {
  const state = await conversations.state(conversationId);
  const firstTurn = Math.max(1, state.turnCount - shownTurns + 1);
  const numbers = Array.from({ length: state.turnCount - firstTurn + 1 }, (_, i) => firstTurn + i);
  const read = await Promise.all(
    numbers.map((number) => readTurn({ conversations, state, number, upstream, ended })),
  );
  const missing = read.filter((r) => r.turn.problem !== undefined).map((r) => r.turn.turnId);
  return {
    state,
    firstTurn,
    turns: read.map((r) => r.turn),
    transcript: read.flatMap((r) => r.messages),
    ...(missing.length > 0 && {
      transcriptProblem: `without ${missing.join(', ')}: ${missing.length === 1 ? 'its' : 'their'} result cannot be read`,
    }),
  };
}

async function readTurn({
  conversations,
  state,
  number,
  upstream,
  ended,
}: {
  conversations: ConversationClient;
  state: ConversationState;
  number: number;
  upstream: UpstreamContext;
  ended: EndedTurnResults;
}): Promise<{ turn: ConversationTurnBody; messages: Message[] }> {
  const turnId = `${state.conversationId}#${number}`;
  if (state.running?.turnId === turnId) return { turn: { turnId, number, status: 'running' }, messages: [] };
  try {
    const result = await ended.read({
      incarnation: state.incarnation,
      turnId,
      fetch: () => conversations.turn(state.conversationId, number).result(),
    });
    return {
      turn: { turnId, number, status: result.status },
      messages: turnMessages(result).map(glanceMessage),
    };
  } catch (error) {
    return { turn: { turnId, number, ...noResult({ error, upstream }) }, messages: [] };
  }
}

/**
 * Why an ended turn has no result to read: its workflow ended without one (`failed`, as the
 * conversation itself counts it) or is gone. Any other error (the server is unreachable) is thrown.
 */
function noResult({ error, upstream }: { error: unknown; upstream: UpstreamContext }): {
  status: string;
  problem: string;
} {
  const mapped = upstreamError({ error, context: upstream });
  if (mapped.status === 404)
    return { status: 'gone', problem: 'its workflow is gone (deleted, or past the namespace retention)' };
  if (mapped.status === 502) return { status: 'failed', problem: reasonOf({ error }) };
  throw mapped;
}

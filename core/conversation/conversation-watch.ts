import type { TurnWatchEvent } from '../watch/turn-watch-event';
import type { ConversationState } from './conversation-state';
import { conversationTurnId } from './conversation-turn-id';

/** What a conversation's watch yields: an event of one of its turns, saying which. */
export interface ConversationWatchEvent {
  turnId: string;
  turnNumber: number;
  event: TurnWatchEvent;
}

export interface ConversationWatchOptions {
  /** The first turn to show (default: the running turn, else the next one to start). */
  fromTurn?: number;
  /** Also the text and reasoning as they stream (default true). */
  live?: boolean;
  /** Stops the watch at its next look. */
  signal?: AbortSignal;
}

/** The turn a watch begins with: the running one, else the next (turn 1 of one not begun). */
export function firstWatchedTurn(state: ConversationState | undefined): number {
  if (!state) return 1;
  return state.running ? state.turnCount : state.turnCount + 1;
}

/** Whether a watch waiting for turn `n` is over: closed, nothing runs or waits, so it never starts. */
export function watchOver(state: ConversationState | undefined, n: number): boolean {
  if (!state?.closed || state.running) return false;
  return state.next.length + state.queue.length === 0 && state.turnCount < n;
}

/**
 * A conversation's turns' events, one turn after another (what both hosts' `watch` yield): from
 * `fromTurn` (default `firstWatchedTurn`) on, each turn's events to its end, then the next turn's
 * once its state says it started; over once `watchOver`, or when `signal` aborts. `look` reads the
 * state (undefined: not begun), `waitForChange` waits before looking again.
 */
export async function* followConversation({
  conversationId,
  fromTurn,
  signal,
  look,
  waitForChange,
  watchTurn,
}: {
  conversationId: string;
  fromTurn?: number | undefined;
  signal?: AbortSignal | undefined;
  look: () => Promise<ConversationState | undefined>;
  waitForChange: () => Promise<void>;
  watchTurn: (turnId: string) => AsyncIterable<TurnWatchEvent>;
}): AsyncGenerator<ConversationWatchEvent> {
  // An abort ends the watch at once, not at the turn's next event (it may wait days for an approval).
  const aborted = new Promise<'aborted'>((resolve) => {
    if (signal?.aborted) resolve('aborted');
    signal?.addEventListener('abort', () => resolve('aborted'), { once: true });
  });
  let n = fromTurn ?? firstWatchedTurn(await look());
  while (!signal?.aborted) {
    const state = await look();
    if (watchOver(state, n)) return;
    if (!state || state.turnCount < n) {
      await waitForChange();
      continue;
    }
    const turnId = conversationTurnId(conversationId, n);
    const events = watchTurn(turnId)[Symbol.asyncIterator]();
    try {
      for (;;) {
        const next = await Promise.race([events.next(), aborted]);
        if (next === 'aborted') return;
        if (next.done) break;
        yield { turnId, turnNumber: n, event: next.value };
      }
    } finally {
      void events.return?.();
    }
    n += 1;
  }
}

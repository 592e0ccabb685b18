import { continuationBlocked } from '../budget/budget-check';
import type { AttemptResult } from '../schema/attempt-result';
import type { JournalEntry } from '../schema/journal-entry';
import { notStartedDelay } from './engine-revision';
import { commit, lostEntry, openCall, settle, transition } from './record-entries';
import { batchOpen, type TurnState } from './turn-state';

/** What a tool attempt's host reports: finished, lost, never started, cancelled, or failed around the tool. */
export function onToolAttemptFinished(
  state: TurnState,
  {
    toolCallId,
    attempt,
    result,
    durationMs,
    now,
  }: {
    toolCallId: string;
    attempt: number;
    result: AttemptResult;
    durationMs: number;
    now: number;
  },
): JournalEntry[] {
  const call = openCall(state, toolCallId);
  if (call?.phase !== 'running' || !call.attempts.some((a) => a.attempt === attempt && !a.result)) return [];
  const entries = transition(state, {
    type: 'tool.attempt_finished',
    toolCallId,
    attempt,
    result,
    at: now,
    durationMs,
  });
  const blocked = continuationBlocked(state.config.budget, state.spent, now);
  if (blocked && !state.halt && (batchOpen(state) || state.background.length > 0)) {
    commit(state, { type: 'turn.halted', reason: 'budget_exhausted', detail: blocked }, entries);
    settle(state, entries);
  }
  return entries;
}

/**
 * The host lost an attempt: it started and nobody can say how it ended (its worker died or
 * stopped heartbeating). The engine decides, the same way on every executor: a retry-safe call
 * runs again with the same idempotency key (a bounded number of times), any other gets an
 * explicit interrupted output saying its outcome is unknown.
 */
export function onToolAttemptLost(
  state: TurnState,
  {
    toolCallId,
    attempt,
    detail,
  }: {
    toolCallId: string;
    attempt: number;
    detail?: string;
  },
): JournalEntry[] {
  const call = openCall(state, toolCallId);
  if (call?.phase !== 'running' || !call.attempts.some((a) => a.attempt === attempt && !a.result)) return [];
  return transition(state, lostEntry(state, call, attempt, detail));
}

/**
 * The attempt's host could not read its input (it lacks the encryption key): the tool never ran,
 * so the call runs again — after a backoff, so hosts without the key do not spin on it — and the
 * attempt uses up nothing. After a halt it is not run again: it gets an interrupted output.
 */
export function onToolAttemptNotStarted(
  state: TurnState,
  {
    toolCallId,
    attempt,
    detail,
    now,
  }: {
    toolCallId: string;
    attempt: number;
    detail: string;
    now: number;
  },
): JournalEntry[] {
  const call = openCall(state, toolCallId);
  if (call?.phase !== 'running' || !call.attempts.some((a) => a.attempt === attempt && !a.result)) return [];
  const retryAt = state.halt ? undefined : now + notStartedDelay((call.notStartedAttempts ?? 0) + 1);
  return transition(state, {
    type: 'tool.attempt_not_started',
    toolCallId,
    attempt,
    detail,
    ...(retryAt !== undefined ? { retryAt } : {}),
  });
}

/**
 * The attempt was stopped by the turn's cancellation before it could report (on Temporal: its
 * activity was cancelled before it ran, or ended as cancelled): it did not finish.
 */
export function onToolAttemptCancelled(
  state: TurnState,
  {
    toolCallId,
    attempt,
    now,
  }: {
    toolCallId: string;
    attempt: number;
    now: number;
  },
): JournalEntry[] {
  return onToolAttemptFinished(state, {
    toolCallId,
    attempt,
    result: {
      status: 'interrupted',
      content: 'interrupted: cancelled before it finished',
      errorType: 'cancelled',
    },
    durationMs: 0,
    now,
  });
}

/**
 * The attempt could not run for a reason of the host's (its activity failed before or around
 * the tool: an unregistered activity, an input that did not decode): an error for the model,
 * not retried.
 */
export function onToolAttemptFailed(
  state: TurnState,
  {
    toolCallId,
    attempt,
    message,
    now,
  }: {
    toolCallId: string;
    attempt: number;
    message: string;
    now: number;
  },
): JournalEntry[] {
  const content = `the tool's activity failed: ${message}`;
  return onToolAttemptFinished(state, {
    toolCallId,
    attempt,
    result: {
      status: 'error',
      content,
      errorType: 'activity-failed',
      retryable: false,
      resultHash: `activity-failed:${message}`,
    },
    durationMs: 0,
    now,
  });
}

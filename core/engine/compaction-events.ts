import type { JournalEntry } from '../schema/journal-entry';
import type { Usage } from '../schema/usage';
import { modelRequestKey } from '../tools/idempotency-key';
import type { CompactionCall, ModelFailure } from './engine-types';
import { failedAttempt } from './failed-attempt';
import { commit, settle } from './record-entries';
import { compactionPoint } from './request-context';
import type { TurnState } from './turn-state';

/**
 * Compaction's side of a turn: when one is due, the summary request, and its answer. A compaction
 * is due when the provider refused a request as too long, or — with `maxContextTokens` — before a
 * request once the last response's context reached it; and only when it would cover something new
 * (a second compaction at the same point would summarise the summary, and fit no better).
 */
export function canCompact(state: TurnState): boolean {
  if (!state.config.compaction || state.halt || state.finished || state.compacting) return false;
  const through = compactionPoint(state.messages, state.inputLength);
  if (state.compactionDeclinedAt !== undefined && through <= state.compactionDeclinedAt) return false;
  return state.compaction === undefined || through > state.compaction.through;
}

/** The configured context size was reached: compact before the next request. */
export function compactionDueByBudget(state: TurnState): boolean {
  const max = state.config.compaction?.maxContextTokens;
  return max !== undefined && (state.contextTokens ?? 0) >= max && canCompact(state);
}

export function requestCompaction(
  state: TurnState,
  reason: 'budget' | 'overflow',
  entries: JournalEntry[],
): void {
  const through = compactionPoint(state.messages, state.inputLength);
  commit(state, { type: 'context.compaction_requested', through, reason }, entries);
}

export function compactionOp(state: TurnState): CompactionCall {
  const compacting = state.compacting;
  if (!compacting) throw new Error(`turn ${state.turnId} has no compaction to carry out`);
  const { turnId, responseIndex, revision, compaction } = state;
  return {
    kind: 'compact',
    attempt: compacting.failures + 1,
    through: compacting.through,
    inputLength: state.inputLength,
    messages: state.messages,
    ...(compaction ? { previous: { ...compaction, inputLength: state.inputLength } } : {}),
    instruction: state.config.compaction?.instruction ?? '',
    idempotencyKey: `${modelRequestKey({ revision, turnId, responseIndex })}/compaction`,
    timeoutMs: state.config.timeouts.modelMs,
  };
}

export function onCompacted(
  state: TurnState,
  { attempt, summary, usage }: { attempt: number; summary: string; usage: Usage },
): JournalEntry[] {
  const compacting = state.compacting;
  if (state.finished || !compacting || attempt !== compacting.failures + 1) return [];
  const entries: JournalEntry[] = [];
  commit(state, { type: 'context.compacted', through: compacting.through, summary, usage }, entries);
  settle(state, entries);
  return entries;
}

/**
 * A summary request failed: asked again after the model's backoff when transient. Otherwise the
 * compaction is given up: for the configured size the turn goes on without it; for an overflow the
 * turn fails.
 */
export function onCompactionFailed(
  state: TurnState,
  { attempt, error, now }: { attempt: number; error: ModelFailure; now: number },
): JournalEntry[] {
  const compacting = state.compacting;
  if (state.finished || !compacting || attempt !== compacting.failures + 1) return [];
  const { retry, record } = failedAttempt(state, { attempt, error, now });
  const entries: JournalEntry[] = [];
  commit(state, { type: 'context.compaction_failed', ...record }, entries);
  // A compaction for the configured size is a precaution: without it the request is asked as it
  // is. One for a request the provider refused as too long is not: without it the turn cannot go on.
  if (!retry && compacting.reason === 'overflow') {
    const tries = attempt === 1 ? '' : ` after ${attempt} attempts`;
    const reason = `the context is too long for the model, and compacting it failed${tries}: ${error.message}`;
    commit(state, { type: 'turn.finished', status: 'failed', reason }, entries);
  }
  settle(state, entries);
  return entries;
}

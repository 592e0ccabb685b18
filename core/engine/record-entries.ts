import type { JournalEntry } from '../schema/journal-entry';
import { copyOutput, type ToolOutput } from '../schema/tool-output';
import { applyEntry } from './apply-entry';
import { backgroundCall, batchOutputOf, deliverable } from './background-calls';
import { maxLostAttemptReruns } from './engine-revision';
import { answerEntry } from './structured-answer';
import { batchOpen, type CallState, type TurnState } from './turn-state';

/**
 * How the engine records: an entry is applied to the state as it is committed (the state is only
 * ever the fold of the journal), and `settle` records whatever then follows from the state by
 * itself. Every handler of the engine writes through these.
 */
export function transition(state: TurnState, entry: JournalEntry): JournalEntry[] {
  const entries: JournalEntry[] = [];
  commit(state, entry, entries);
  settle(state, entries);
  return entries;
}

export function commit(state: TurnState, entry: JournalEntry, into: JournalEntry[]): void {
  applyEntry(state, entry);
  into.push(entry);
}

/**
 * Records whatever follows from the state by itself: decided outputs in batch order, a halt
 * decided while recording (loop stop), and the end of the turn.
 */
export function settle(state: TurnState, into: JournalEntry[]): void {
  for (;;) {
    if (state.finished) return;
    if (state.pendingHalt && !state.halt) {
      commit(
        state,
        { type: 'turn.halted', reason: state.pendingHalt.reason, detail: state.pendingHalt.detail },
        into,
      );
      continue;
    }
    if (batchOpen(state)) {
      // Outputs are recorded after the response that asked for them, never while it streams.
      if (state.batch.streamOpen) return;
      const next = state.batch.calls[state.batch.recordedCount];
      const output = next && batchOutputOf(next);
      if (next && output) {
        // The notice is derived again on replay (loop detection), so it is not recorded.
        const recorded = copyOutput(output, { withNotice: false });
        commit(state, { type: 'tool.completed', toolCallId: next.call.toolCallId, output: recorded }, into);
        continue;
      }
      return;
    }
    // Background outputs are delivered between requests, never into one that is in flight.
    if (state.background.length > 0 && (!state.modelInFlight || state.halt)) {
      const ready = deliverable(state);
      if (ready.length > 0) {
        const deliveries = ready.map((c) => ({
          toolCallId: c.call.toolCallId,
          toolName: c.call.toolName,
          output: copyOutput(c.final as ToolOutput, { withNotice: false }),
        }));
        commit(state, { type: 'background.delivered', deliveries }, into);
        continue;
      }
    }
    // Steers join between requests too, once the response before is answered in full.
    if (state.pendingSteers?.length && !state.modelInFlight && !state.modelDone && !state.halt) {
      commit(state, { type: 'user.steered', messages: [...state.pendingSteers] }, into);
      continue;
    }
    // A turn ends only once every background output is delivered.
    if (state.background.length > 0) return;
    if (state.halt) {
      commit(state, { type: 'turn.finished', status: state.halt.reason, reason: state.halt.detail }, into);
      return;
    }
    if (!state.modelDone) return;
    const answered = answerEntry(state);
    commit(state, answered, into);
    // Asked again: the request for the new answer comes next.
    if (answered.type === 'output.rejected') continue;
    return;
  }
}

export function openCall(state: TurnState, toolCallId: string): CallState | undefined {
  if (state.finished) return undefined;
  return state.batch?.byId.get(toolCallId) ?? backgroundCall(state, toolCallId);
}

/** The current batch's calls, then background calls of earlier batches. */
export function openCalls(state: TurnState): CallState[] {
  const batch = state.batch;
  const calls = batch && batchOpen(state) ? [...batch.calls] : [];
  for (const call of state.background) if (!batch?.byId.has(call.call.toolCallId)) calls.push(call);
  return calls;
}

/** After a halt nothing new starts, so a lost call is not run again even if it could be. */
export function lostEntry(state: TurnState, call: CallState, attempt: number, detail?: string): JournalEntry {
  const rerun =
    call.call.policy.retrySafe &&
    !state.halt &&
    call.stopRequested === undefined &&
    (call.lostAttempts ?? 0) < maxLostAttemptReruns;
  return {
    type: 'tool.attempt_lost',
    toolCallId: call.call.toolCallId,
    attempt,
    rerun,
    ...(detail ? { detail } : {}),
  };
}

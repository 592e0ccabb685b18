import type { DispatchConfig } from '../schema/turn-config';
import { blockedByBackground } from './call-conflicts';
import type { BatchState, CallState } from './turn-state';

export interface LaunchPlan {
  /** Calls to start now, in batch order. */
  starts: CallState[];
  /** Calls of the current wave that wait for a person's decision. */
  approvals: CallState[];
  /** The earliest time a waiting retry is due. */
  nextRetryAt?: number;
  /** Calls running before these starts (all in the current wave). */
  running: number;
  /** Calls that would start but wait for a running background call they conflict with. */
  blocked: number;
}

/**
 * Which calls may start now. Waves run in order: only calls of the first wave that still has an
 * undecided call are considered, so a barrier (an unsafe call, or a resource conflict) holds until
 * everything before it is done. Within that wave at most `maxConcurrency` calls run at once; a call
 * waiting for its retry keeps its place in the wave.
 *
 * A background call leaves its wave once it starts (its place holds the placeholder result), but
 * holds its resources while it runs: a call that conflicts with a running background call waits.
 */
export function planLaunches({
  batch,
  dispatch,
  now,
  background = [],
}: {
  batch: BatchState;
  dispatch: DispatchConfig;
  now: number;
  /** The turn's background calls whose output is not delivered (from this batch or earlier ones). */
  background?: readonly CallState[];
}): LaunchPlan {
  const plan: LaunchPlan = { starts: [], approvals: [], running: 0, blocked: 0 };
  // While the response streams, only safe calls may start, and only in parallel mode: an unsafe
  // call waits for the end of the stream (and is a barrier for everything after it).
  if (batch.streamOpen && dispatch.mode !== 'parallel') return plan;
  const limit = dispatch.mode === 'sequential' ? 1 : Math.max(1, dispatch.maxConcurrency);
  // Calls before the first undecided one are done for good, so the scan can start there.
  let first = batch.scanFrom ?? 0;
  while (first < batch.calls.length && settledInBatch(batch.calls[first] as CallState)) first += 1;
  batch.scanFrom = first;
  const head = batch.calls[first];
  if (!head) return plan;
  const wave = head.wave;
  // Waves run in order, so every running call belongs to the current wave.
  const current: CallState[] = [];
  for (let i = first; i < batch.calls.length && batch.calls[i]?.wave === wave; i++) {
    const call = batch.calls[i] as CallState;
    if (!call.backgrounded) current.push(call);
  }
  let busy = 0;
  for (const call of current) if (call.phase === 'running') busy += 1;
  plan.running = busy;
  for (const call of current) {
    if (call.phase === 'done') continue;
    if (needsApproval(call)) {
      plan.approvals.push(call);
      continue;
    }
    if (batch.streamOpen && !call.call.policy.concurrencySafe) continue;
    const ready = dueToStart(call, now);
    if (ready && busy < limit) {
      if (background.length > 0 && blockedByBackground(call, background)) {
        plan.blocked += 1;
        continue;
      }
      plan.starts.push(call);
      busy += 1;
    } else if (call.phase === 'retry-wait' && call.retryAt !== undefined) {
      plan.nextRetryAt = Math.min(plan.nextRetryAt ?? Number.POSITIVE_INFINITY, call.retryAt);
    }
  }
  return plan;
}

/** Whether a call may start now: never started, or its retry is due. */
export function dueToStart(call: CallState, now: number): boolean {
  return call.phase === 'pending' || (call.phase === 'retry-wait' && (call.retryAt ?? 0) <= now);
}

/** Done, or set aside in the background: nothing of the batch waits for it any more. */
function settledInBatch(call: CallState): boolean {
  return call.phase === 'done' || call.backgrounded === true;
}

export function needsApproval(call: CallState): boolean {
  if (call.phase === 'awaiting-approval') return true;
  return call.phase === 'pending' && call.call.policy.requiresApproval && call.approval === undefined;
}

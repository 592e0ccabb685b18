import type { DispatchConfig } from '../schema/turn-config';
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
}

/**
 * Which calls may start now. Waves run in order: only calls of the first wave that still has an
 * undecided call are considered, so a barrier (an unsafe call, or a resource conflict) holds until
 * everything before it is done. Within that wave at most `maxConcurrency` calls run at once; a call
 * waiting for its retry keeps its place in the wave.
 */
export function planLaunches({
  batch,
  dispatch,
  now,
}: {
  batch: BatchState;
  dispatch: DispatchConfig;
  now: number;
}): LaunchPlan {
  const plan: LaunchPlan = { starts: [], approvals: [], running: 0 };
  // While the response streams, only safe calls may start, and only in parallel mode: an unsafe
  // call waits for the end of the stream (and is a barrier for everything after it).
  if (batch.streamOpen && dispatch.mode !== 'parallel') return plan;
  const limit = dispatch.mode === 'sequential' ? 1 : Math.max(1, dispatch.maxConcurrency);
  // Calls before the first undecided one are done for good, so the scan can start there.
  let first = batch.scanFrom ?? 0;
  while (first < batch.calls.length && batch.calls[first]?.phase === 'done') first += 1;
  batch.scanFrom = first;
  const head = batch.calls[first];
  if (!head) return plan;
  const wave = head.wave;
  // Waves run in order, so every running call belongs to the current wave.
  const current: CallState[] = [];
  for (let i = first; i < batch.calls.length && batch.calls[i]?.wave === wave; i++)
    current.push(batch.calls[i] as CallState);
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
    const ready = call.phase === 'pending' || (call.phase === 'retry-wait' && (call.retryAt ?? 0) <= now);
    if (ready && busy < limit) {
      plan.starts.push(call);
      busy += 1;
    } else if (call.phase === 'retry-wait' && call.retryAt !== undefined) {
      plan.nextRetryAt = Math.min(plan.nextRetryAt ?? Number.POSITIVE_INFINITY, call.retryAt);
    }
  }
  return plan;
}

export function needsApproval(call: CallState): boolean {
  if (call.phase === 'awaiting-approval') return true;
  return call.phase === 'pending' && call.call.policy.requiresApproval && call.approval === undefined;
}

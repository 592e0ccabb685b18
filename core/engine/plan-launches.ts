import type { DispatchConfig } from '../schema/turn-config';
import type { BatchState, CallState } from './turn-state';

export interface LaunchPlan {
  /** Calls to start now, in batch order. */
  starts: CallState[];
  /** Calls of the current wave that wait for a person's decision. */
  approvals: CallState[];
  /** The earliest time a waiting retry is due. */
  nextRetryAt?: number;
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
  const limit =
    dispatch.mode === 'sequential' ? 1 : Math.max(1, Math.min(dispatch.maxConcurrency, batch.calls.length));
  let busy = batch.calls.filter((c) => c.phase === 'running').length;
  const open = batch.calls.filter((c) => c.phase !== 'done');
  if (open.length === 0) return { starts: [], approvals: [] };
  const wave = Math.min(...open.map((c) => c.wave));
  const plan: LaunchPlan = { starts: [], approvals: [] };
  for (const call of open) {
    if (call.wave !== wave) continue;
    if (needsApproval(call)) {
      plan.approvals.push(call);
      continue;
    }
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

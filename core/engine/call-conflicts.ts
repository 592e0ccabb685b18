import type { CallPolicy } from '../schema/prepared-call';
import type { CallState } from './turn-state';

/**
 * Whether two calls may not run at the same time: either is not concurrency-safe, or they share a
 * resource. A background call holds its resources while it runs, across later batches.
 */
export function callsConflict(a: Pick<CallPolicy, 'concurrencySafe' | 'resources'>, b: typeof a): boolean {
  if (!a.concurrencySafe || !b.concurrencySafe) return true;
  for (const key of a.resources) if (b.resources.includes(key)) return true;
  return false;
}

/**
 * Whether a running background call (or one starting now) holds a call back: a short scan of a
 * short list, and none at all in a turn without background calls.
 */
export function blockedByBackground(
  call: CallState,
  background: readonly CallState[],
  startingNow?: ReadonlySet<CallState>,
): boolean {
  for (const other of background) {
    if (other === call || !(other.phase === 'running' || startingNow?.has(other))) continue;
    if (callsConflict(call.call.policy, other.call.policy)) return true;
  }
  return false;
}

import { planLaunches } from './plan-launches';
import { batchOpen, type TurnState } from './turn-state';

/**
 * Whether the turn, as its journal stands, waits for nothing but people's decisions: no model
 * request in flight, a call of the current wave awaiting approval, and nothing else of the wave
 * running, due to start, or waiting for a retry (a watcher of the journal asks, e.g. a chat stream
 * that ends where its page must answer). Background calls still out do not count: they report at
 * a later model request, whatever the decision.
 */
export function waitsOnlyForApprovals(state: TurnState | undefined): boolean {
  if (!state || state.finished || state.modelInFlight || state.halt) return false;
  const batch = state.batch;
  if (!batch || !batchOpen(state)) return false;
  // Any time will do: a retry's due time only matters in that it exists.
  const plan = planLaunches({ batch, dispatch: state.config.dispatch, now: 0, background: state.background });
  return (
    plan.approvals.length > 0 &&
    // Asked for, not only due to be: the request is in the journal for the watcher to show.
    plan.approvals.every((call) => call.approvalRequestedAt !== undefined) &&
    plan.starts.length === 0 &&
    plan.running === 0 &&
    plan.nextRetryAt === undefined &&
    batch.calls.every((call) => call.phase !== 'retry-wait')
  );
}

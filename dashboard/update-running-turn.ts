import type { TurnHandle } from '../client/turn-handle';
import { ApiError } from './api-error';
import { type DashboardContext, withUpstreamDeadline } from './dashboard-context';
import { findTurn } from './find-turn';
import { upstreamError } from './upstream-error';

/**
 * Sends an update (a decision, a grant, a revocation) to a turn that still runs. An ended turn is
 * a 409 saying there is `nothing` to do; one the turn refuses (its validator's reason: nothing
 * changed) is a 409 `cannot <what>: <reason>`.
 */
export async function updateRunningTurn({
  context,
  turnId,
  nothing,
  cannot,
  send,
}: {
  context: DashboardContext;
  turnId: string;
  /** e.g. `no call of it waits for a decision`. */
  nothing: string;
  /** e.g. `approve C of turn T`. */
  cannot: string;
  send: (handle: TurnHandle) => Promise<void>;
}): Promise<void> {
  const found = await findTurn({ context, turnId });
  if (!found.running)
    throw new ApiError(
      409,
      `turn ${turnId} already ended (${found.workflowStatus.toLowerCase()}); ${nothing}`,
    );
  await withUpstreamDeadline({ context, fn: () => send(context.client.attach(turnId)) }).catch(
    (error: unknown) => {
      const mapped = upstreamError({ error, context: context.upstream, turnId });
      if (mapped.status === 409) throw new ApiError(409, `cannot ${cannot}: ${mapped.message}`);
      throw mapped;
    },
  );
}

import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { RunQuickChainInput, TurnActivities } from '../contract/activities';
import { callAsRun, runQuickChain, TurnEngine } from '../core';
import type { ActivityDeps } from './activity-support';
import { runAttemptHere } from './tool-attempt';

/**
 * The worker side of a quick chain (`runQuickChain`): quick calls that must run one after another,
 * back to back in one local activity, the engine restored from the turn's snapshot deciding each
 * next start. The workflow side is workflows/activity-starts/tool-attempts.ts.
 */
export function quickChainActivity({ deps }: { deps: ActivityDeps }): TurnActivities['runQuickChain'] {
  return async function runQuickChainHere({
    turnId,
    snapshot,
    first,
    now,
    maxOutputBytes,
    session,
  }: RunQuickChainInput) {
    const ctx = Context.current();
    const began = Date.now();
    // Restoring validates the snapshot: a chain never runs from state it cannot read.
    const engine = TurnEngine.restore(snapshot);
    const held = engine.view.batch?.byId.get(first.toolCallId);
    // As the workflow would start it: an approver's edited arguments, not the model's.
    const call = held && callAsRun(held);
    if (!call)
      throw ApplicationFailure.nonRetryable(
        `quick chain: call ${first.toolCallId} is not in the turn's batch`,
      );
    const attempts = await runQuickChain({
      engine,
      first: { ...first, call },
      now,
      maxOutputBytes,
      elapsedMs: () => Date.now() - began,
      stopped: () => ctx.cancellationSignal.aborted,
      run: (start) =>
        runAttemptHere({
          deps,
          ctx,
          input: {
            turnId,
            call: start.call,
            attempt: start.attempt,
            approved: start.approved,
            maxOutputBytes,
            idempotencyKey: start.idempotencyKey,
            timeoutMs: start.timeoutMs,
            ...(session !== undefined ? { session } : {}),
          },
        }),
    });
    return { attempts };
  };
}

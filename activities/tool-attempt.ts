import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  attemptLostType,
  type QuickRunToolInput,
  type RunToolInput,
  type RunToolOutput,
  runToolInputSchema,
} from '../contract/activities';
import { runToolAttempt } from '../core';
import { traceToolAttempt } from '../tracing/trace-tool-attempt';
import { type ActivityDeps, heartbeatEvery, parseInput, timers } from './activity-support';
import { temporalSubAgents } from './sub-agent-turns';
import { turnRegistry } from './turn-registry';

/**
 * The worker side of a tool attempt (`runTool`): as an ordinary activity, or a local one for a
 * quick call. The workflow side is workflows/activity-starts/tool-attempts.ts.
 */
export function toolAttemptActivity({
  deps,
}: {
  deps: ActivityDeps;
}): (input: RunToolInput | QuickRunToolInput) => Promise<RunToolOutput> {
  return async function runTool(input: RunToolInput | QuickRunToolInput): Promise<RunToolOutput> {
    const ctx = Context.current();
    // A local activity (a quick call) cannot heartbeat: its cancellation comes from its own
    // worker, and it is not tracked by the server.
    const local = ctx.info.isLocal;
    // A quick call's input never left this process: the workflow on this worker made it a moment
    // ago from the engine's own (parsed) call, in its slim form (QuickRunToolInput). Reading it
    // again could find nothing, and cost ~0.1 ms a call in the live worker (cold, between calls),
    // a tenth of what a quick call adds to a bare local activity.
    return runAttemptHere({
      deps,
      ctx,
      input: local ? input : parseInput(runToolInputSchema, input, 'runTool'),
    });
  };
}

/** One attempt of a tool call on this worker, as an ordinary activity, a quick one or a chain's runs it. */
export async function runAttemptHere({
  deps,
  ctx,
  input,
}: {
  deps: ActivityDeps;
  ctx: Context;
  input: RunToolInput | QuickRunToolInput;
}): Promise<RunToolOutput> {
  const local = ctx.info.isLocal;
  const { turnId, call, attempt, approved, maxOutputBytes, idempotencyKey, timeoutMs, session } = input;
  // Heartbeat on our own as well as when the tool does: cancellation reaches an activity only
  // through heartbeats, and a lost worker is noticed by their absence.
  const beat = local ? undefined : setInterval(() => ctx.heartbeat(), heartbeatEvery(ctx));
  // A session call (it carries the servers reached so far): does this worker hold the current sessions?
  const toolSession =
    session?.opened !== undefined && deps.sessionQueue !== undefined
      ? { ...session, here: session.holder === deps.sessionQueue }
      : session;
  try {
    // A tool of the worker's own is found at once; any other may be one the turn's servers listed.
    const registry = deps.registry.get(call.toolName)
      ? deps.registry
      : await turnRegistry({ deps, ctx, workflowId: ctx.info.workflowExecution?.workflowId ?? turnId });
    const ran = await traceToolAttempt({
      tracing: deps.tracing,
      turnId,
      call,
      attempt,
      run: () =>
        runToolAttempt({
          turnId,
          call,
          attempt,
          approved,
          maxOutputBytes,
          ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
          ...(toolSession !== undefined ? { session: toolSession } : {}),
          registry,
          hooks: deps.hooks,
          observers: deps.observers,
          health: deps.health,
          timers,
          signal: ctx.cancellationSignal,
          heartbeat: local ? () => {} : (details) => ctx.heartbeat(details),
          storeFiles: deps.files.store,
          // A quick call holds the workflow task: it runs no sub-agent (a turn of its own, minutes long).
          ...(local ? {} : { agents: temporalSubAgents(ctx) }),
        }),
    });
    // Stopped, but not by the turn's cancel: its worker is going away (or the activity timed
    // out, was paused or reset). That is not what the tool did; say the attempt was lost.
    const details = ctx.cancellationDetails;
    if (
      !local &&
      ran.result.status === 'interrupted' &&
      ctx.cancellationSignal.aborted &&
      !details?.cancelRequested
    ) {
      const why = details?.workerShutdown ? 'its worker shut down' : 'its activity was stopped';
      throw ApplicationFailure.create({
        message: `${call.toolName} was stopped before it finished (${why}); its outcome is unknown`,
        type: attemptLostType,
      });
    }
    // This worker holds the call's session now: its conversation's next calls come here.
    const server = local ? undefined : (input as RunToolInput).call.policy.session;
    return server !== undefined && deps.sessionQueue ? { ...ran, sessionQueue: deps.sessionQueue } : ran;
  } finally {
    clearInterval(beat);
  }
}

import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { z } from 'zod';
import {
  attemptLostType,
  type CallModelInput,
  type CallModelOutput,
  callModelInputSchema,
  modelFailedType,
  modelRejectedType,
  type QuickRunToolInput,
  type RunQuickChainInput,
  type RunToolInput,
  type RunToolOutput,
  runToolInputSchema,
  type TurnActivities,
} from '../contract/activities';
import { acceptCallsUpdate, modelRequestQuery } from '../contract/turn-workflow';
import {
  buildModelResponse,
  continuationOf,
  type HostTimers,
  type Message,
  ModelError,
  type ModelResponse,
  modelRequestKey,
  type PreparedCall,
  prepareCall,
  runQuickChain,
  runToolAttempt,
  type ToolHealthRegistry,
  type ToolRegistry,
  TurnEngine,
  type TurnHooks,
  type TurnModel,
  type TurnObserver,
} from '../core';
import { streamResponse } from '../models';
import { toolSpecs } from '../models/tool-specs';
import { traceModelRequest } from '../tracing/trace-model-request';
import { traceToolAttempt } from '../tracing/trace-tool-attempt';
import type { TurnTracing } from '../tracing/turn-tracing';
import { CallHandOver } from './call-hand-over';
import { LiveText } from './live-text';
import { readModelRequest } from './read-model-request';
import { TranscriptCache } from './transcript-cache';

export interface ActivityDeps {
  registry: ToolRegistry;
  models: ReadonlyMap<string, TurnModel>;
  hooks: readonly TurnHooks[];
  observers: readonly TurnObserver[];
  health: ToolHealthRegistry;
  /** What model requests read of their turns' transcripts (default: a cache of this worker's own). */
  transcripts?: TranscriptCache;
  /** Spans for model requests and tool attempts, children of the activity's (default: none). */
  tracing?: TurnTracing;
  /**
   * The task queue of each model whose requests are rate-limited across the fleet: a request for
   * one that arrives on another queue is sent there instead (see `ModelRouted`).
   */
  modelQueues?: ReadonlyMap<string, string>;
}

const timers: HostTimers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/**
 * The activities of a turn, bound to the worker's tools, models, hooks, observers and health.
 * Observers, hooks and health run here, per attempt, on the worker that runs the attempt.
 */
export function createActivities(deps: ActivityDeps): TurnActivities {
  const transcripts = deps.transcripts ?? new TranscriptCache();
  return {
    async callModel(input: CallModelInput): Promise<CallModelOutput> {
      const {
        turnId,
        workflowId,
        responseIndex,
        model: modelName,
        idempotencyKey,
        maxArgumentBytes,
        continuation,
        context,
      } = parseInput(callModelInputSchema, input, 'callModel');
      const ctx = Context.current();
      const routedTo = deps.modelQueues?.get(modelName);
      if (routedTo !== undefined && ctx.info.taskQueue !== routedTo) return { routedTo };
      // Every heartbeat carries the text so far: watchers read it from the pending activity.
      const live = new LiveText({ responseIndex, attempt: ctx.info.attempt });
      // From the start: reading the transcript by query can take a while on a busy server, and a
      // silent activity past its heartbeat timeout counts as lost (an attempt burnt for nothing).
      const beat = setInterval(() => ctx.heartbeat(live.details()), heartbeatEvery(ctx));
      try {
        return await traceModelRequest({
          tracing: deps.tracing,
          model: modelName,
          turnId,
          responseIndex,
          run: ({ input }) =>
            callModelAttempt({
              ctx,
              live,
              turnId,
              workflowId,
              responseIndex,
              modelName,
              idempotencyKey,
              maxArgumentBytes,
              continuation,
              // A context sent with the request is as of its scheduling: a retry by Temporal (older
              // workflows) reuses the input after calls may have been handed over, so it reads.
              context: ctx.info.attempt === 1 ? context : undefined,
              onRequest: input,
            }),
        });
      } finally {
        clearInterval(beat);
      }
    },

    async runTool(input: RunToolInput | QuickRunToolInput): Promise<RunToolOutput> {
      const ctx = Context.current();
      // A local activity (a quick call) cannot heartbeat: its cancellation comes from its own
      // worker, and it is not tracked by the server.
      const local = ctx.info.isLocal;
      // A quick call's input never left this process: the workflow on this worker made it a moment
      // ago from the engine's own (parsed) call, in its slim form (QuickRunToolInput). Reading it
      // again could find nothing, and cost ~0.1 ms a call in the live worker (cold, between calls),
      // a tenth of what a quick call adds to a bare local activity.
      return runAttempt(ctx, local ? input : parseInput(runToolInputSchema, input, 'runTool'));
    },

    async runQuickChain({ turnId, snapshot, first, now, maxOutputBytes }: RunQuickChainInput) {
      const ctx = Context.current();
      const began = Date.now();
      // Restoring validates the snapshot: a chain never runs from state it cannot read.
      const engine = TurnEngine.restore(snapshot);
      const call = engine.view.batch?.byId.get(first.toolCallId)?.call;
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
          runAttempt(ctx, {
            turnId,
            call: start.call,
            attempt: start.attempt,
            approved: start.approved,
            maxOutputBytes,
            idempotencyKey: start.idempotencyKey,
            timeoutMs: start.timeoutMs,
          }),
      });
      return { attempts };
    },
  };

  /** One attempt of a tool call, as an ordinary activity, a quick one or a chain's runs it. */
  async function runAttempt(ctx: Context, input: RunToolInput | QuickRunToolInput): Promise<RunToolOutput> {
    const local = ctx.info.isLocal;
    const { turnId, call, attempt, approved, maxOutputBytes, idempotencyKey, timeoutMs } = input;
    // Heartbeat on our own as well as when the tool does: cancellation reaches an activity only
    // through heartbeats, and a lost worker is noticed by their absence.
    const beat = local ? undefined : setInterval(() => ctx.heartbeat(), heartbeatEvery(ctx));
    try {
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
            registry: deps.registry,
            hooks: deps.hooks,
            observers: deps.observers,
            health: deps.health,
            timers,
            signal: ctx.cancellationSignal,
            heartbeat: local ? () => {} : (details) => ctx.heartbeat(details),
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
      return ran;
    } finally {
      clearInterval(beat);
    }
  }

  async function callModelAttempt({
    ctx,
    live,
    turnId,
    workflowId,
    responseIndex,
    modelName,
    idempotencyKey,
    maxArgumentBytes,
    continuation,
    context,
    onRequest,
  }: {
    ctx: Context;
    live: LiveText;
    turnId: string;
    workflowId: string;
    responseIndex: number;
    modelName: string;
    idempotencyKey: string | undefined;
    maxArgumentBytes: number | undefined;
    continuation: CallModelInput['continuation'];
    context: CallModelInput['context'];
    /** Told the request's messages once they are read (for tracing). */
    onRequest: (messages: readonly Message[]) => void;
  }): Promise<ModelResponse> {
    const model = deps.models.get(modelName);
    if (!model) {
      throw ApplicationFailure.nonRetryable(
        `unknown model ${JSON.stringify(modelName)}; this worker has: ${[...deps.models.keys()].join(', ') || '(none)'}`,
        modelRejectedType,
      );
    }
    // The transcript is read from the workflow, not passed in: activity inputs enter history
    // every time, and a transcript per request would grow history with the square of the turn.
    // Only what this worker has not read yet travels (see readModelRequest).
    const workflow = ctx.client.workflow.getHandle(workflowId);
    // Queries and Updates of the turn's own workflow need a worker to take its workflow task. A
    // worker shutting down takes none, so they could wait for nobody and hold the shutdown: once
    // its grace time runs out the activity is cancelled, and the wait ends with it. (A race, not
    // an abort: the worker's native connection does not abort calls; an Update left waiting is
    // still answered once another worker takes the workflow task.)
    const untilCancelled = <R>(fn: () => Promise<R>) => Promise.race([fn(), ctx.cancelled]);
    // A query normally takes milliseconds; one left unanswered must not hold the attempt until
    // the request's own timeout (minutes): past this it fails as transient, and the engine retries.
    const readTimeoutMs = Math.max(5_000, ctx.info.heartbeatTimeoutMs ?? 0);
    const request = await withDeadline(
      readModelRequest({
        workflowId,
        transcripts,
        ...(context ? { inline: context } : {}),
        query: (known) =>
          untilCancelled(() =>
            known
              ? workflow.query(modelRequestQuery, responseIndex, known)
              : workflow.query(modelRequestQuery, responseIndex),
          ),
      }),
      readTimeoutMs,
      () =>
        ApplicationFailure.create({
          message: `reading turn ${turnId}'s transcript from its workflow took longer than ${readTimeoutMs} ms`,
          type: modelFailedType,
        }),
    );
    if (!request)
      throw ApplicationFailure.nonRetryable(
        `turn ${turnId} is no longer waiting for response ${responseIndex}`,
        modelRejectedType,
      );
    if (request.acceptedCallIds.length > 0) {
      // An earlier attempt's stream already handed calls over before it was lost. They stand
      // (asking the model again could bring a different set): the engine records them as a
      // partial response when it hears that this request failed.
      throw ApplicationFailure.nonRetryable(
        'the model request was lost after some of its tool calls were accepted',
        modelRejectedType,
      );
    }
    onRequest(request.messages);
    const used = new Set(request.callIds);
    const prepared: PreparedCall[] = [];
    let handedOver = 0;
    // Calls go to the workflow by Update as soon as they are complete (after one tick, so a burst
    // goes together); those that complete while an Update is in flight go together in the next.
    const handOver = new CallHandOver(async (calls, batch) => {
      await untilCancelled(() =>
        workflow.executeUpdate(acceptCallsUpdate, {
          args: [{ responseIndex, calls }],
          updateId: `${ctx.info.activityId}-${ctx.info.attempt}-${batch}`,
        }),
      );
      handedOver += calls.length;
    });
    try {
      const { collected, broken } = await streamResponse({
        model,
        request: {
          turnId,
          responseIndex,
          messages: request.messages,
          tools: toolSpecs(deps.registry),
          idempotencyKey: idempotencyKey ?? modelRequestKey({ revision: 1, turnId, responseIndex }),
          signal: ctx.cancellationSignal,
          ...continuationOf(request.messages, continuation),
        },
        observers: deps.observers,
        onPart: async (part) => {
          live.add(part);
          ctx.heartbeat(live.details());
          if (part.type !== 'tool-call') return;
          // Hand the finished call to the workflow now, so it can start before the stream ends.
          const call = prepareCall({
            registry: deps.registry,
            raw: part,
            position: prepared.length,
            responseIndex,
            usedIds: used,
            ...(maxArgumentBytes !== undefined ? { maxArgumentBytes } : {}),
          });
          used.add(call.toolCallId);
          prepared.push(call);
          handOver.push(call);
        },
      });
      // Calls of a burst that the stream's end overtook go with the response instead of an
      // Update of their own: they could start no sooner that way, and each Update is a workflow
      // task and two events more in history.
      handOver.close();
      await handOver.drain();
      // Calls already handed over are in history once (in their update): left out here.
      return buildModelResponse({
        collected,
        registry: deps.registry,
        responseIndex,
        priorCallIds: new Set(request.callIds),
        prepared,
        streamedCallCount: handedOver,
        ...(maxArgumentBytes !== undefined ? { maxArgumentBytes } : {}),
        ...(broken ? { partialReason: `the response stream broke: ${broken.message}` } : {}),
      });
    } catch (error) {
      // A cancelled request ends as cancelled (a worker shutting down retries it elsewhere),
      // whatever the aborted stream or hand-over threw on the way out.
      if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? error;
      if (ModelError.isInstance(error)) {
        if (!error.retryable) throw ApplicationFailure.nonRetryable(error.message, modelRejectedType);
        throw ApplicationFailure.create({
          message: error.message,
          type: modelFailedType,
          ...(error.retryAfterMs !== undefined
            ? { nextRetryDelay: error.retryAfterMs, details: [{ retryAfterMs: error.retryAfterMs }] }
            : {}),
        });
      }
      throw error;
    }
  }
}

/** `work`, or the error `failure` makes once `ms` pass first. */
function withDeadline<T>(work: Promise<T>, ms: number, failure: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(failure()), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/**
 * An activity's input as the contract says it must be; anything else is a bug or a version skew
 * between workflow and worker, which another attempt would not cure: a non-retryable failure
 * that names what was wrong.
 */
function parseInput<T>(schema: z.ZodType<T>, input: unknown, activity: string): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw ApplicationFailure.nonRetryable(
    `${activity} got an input it cannot read: ${parsed.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.join('.') || 'input'}: ${i.message}`)
      .join('; ')}`,
    'ActivityInputInvalid',
  );
}

/**
 * How often an activity heartbeats: often enough that a cancel reaches it within about the
 * worker's heartbeat throttle (`heartbeatThrottleMs`, see createTurnWorker) plus this, and that a
 * lost worker is noticed well within the heartbeat timeout.
 */
export const heartbeatCadenceMs = 250;

function heartbeatEvery(ctx: Context): number {
  const timeout = ctx.info.heartbeatTimeoutMs ?? 10_000;
  return Math.max(20, Math.min(heartbeatCadenceMs, Math.floor(timeout / 4)));
}

import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  type CallModelInput,
  type CallModelOutput,
  callModelInputSchema,
  modelFailedType,
  modelRejectedType,
} from '../contract/activities';
import { acceptCallsUpdate, modelRequestQuery } from '../contract/turn-workflow';
import {
  type EarlierTurns,
  type Message,
  type ModelResponse,
  modelRequestKey,
  requestContext,
} from '../core';
import { streamModelResponse } from '../models/stream-model-response';
import { traceModelRequest } from '../tracing/trace-model-request';
import { type ActivityDeps, heartbeatEvery, parseInput, withDeadline } from './activity-support';
import { CallHandOver } from './call-hand-over';
import { checkOriginOnTemporal, readTurnContext } from './earlier-turns';
import { LiveText } from './live-text';
import { activityFailureOf, workerModel } from './model-activity-failures';
import { readModelRequest } from './read-model-request';
import type { TranscriptCache } from './transcript-cache';
import { turnRegistry } from './turn-registry';

/**
 * The worker side of a model request (`callModel`): reads the request from the turn's workflow,
 * streams the response, hands each finished tool call to the workflow while the stream is open,
 * and heartbeats the text so far for watchers. The workflow side is
 * workflows/activity-starts/model-request.ts.
 */
export function modelRequestActivity({
  deps,
  transcripts,
  earlierTurns,
}: {
  deps: ActivityDeps;
  transcripts: TranscriptCache;
  /** A conversation's earlier turns, read once per worker. */
  earlierTurns: EarlierTurns;
}): (input: CallModelInput) => Promise<CallModelOutput> {
  return async function callModel(input: CallModelInput): Promise<CallModelOutput> {
    const {
      turnId,
      workflowId,
      responseIndex,
      model: modelName,
      idempotencyKey,
      maxArgumentBytes,
      continuationMode,
      continuation,
      context,
      offered,
      conversation,
      compaction,
      output,
    } = parseInput(callModelInputSchema, input, 'callModel');
    const refusal =
      continuationMode === 'since-receipt' ? deps.models.get(modelName)?.cannotContinue : undefined;
    if (refusal !== undefined)
      throw ApplicationFailure.nonRetryable(
        `the turn's continuation 'since-receipt' cannot work with model ${modelName}: ${refusal}; start the turn with continuation 'full'`,
        modelRejectedType,
      );
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
            compaction,
            output,
            earlier: () =>
              // A compacted request sends the summary in their place.
              conversation && !compaction
                ? earlierTurns.before({
                    ...conversation,
                    read: (id) => readTurnContext(ctx.client, id),
                    checkOrigin: checkOriginOnTemporal(ctx.client),
                  })
                : Promise.resolve([]),
            // A context sent with the request is as of its scheduling: a retry by Temporal (older
            // workflows) reuses the input after calls may have been handed over, so it reads.
            context: ctx.info.attempt === 1 ? context : undefined,
            offered: ctx.info.attempt === 1 ? offered : undefined,
            onRequest: input,
          }),
      });
    } finally {
      clearInterval(beat);
    }
  };

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
    compaction,
    output,
    earlier,
    context,
    offered,
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
    compaction: CallModelInput['compaction'];
    output: CallModelInput['output'];
    /** The messages of the conversation's earlier turns, sent before the turn's own. */
    earlier: () => Promise<Message[]>;
    context: CallModelInput['context'];
    offered: CallModelInput['offered'];
    /** Told the request's messages once they are read (for tracing). */
    onRequest: (messages: readonly Message[]) => void;
  }): Promise<ModelResponse> {
    const model = workerModel(deps, modelName);
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
        ...(offered ? { offered } : {}),
        query: (known, page) =>
          untilCancelled(() => workflow.query(modelRequestQuery, responseIndex, known, page)),
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
    // A continued request carries the whole context too: only a model that continues by id sends
    // just what follows the receipt (`requestContext` moves `fromMessage` to match).
    const built = requestContext({
      messages: request.messages,
      earlier: await earlier(),
      compaction,
      continuation,
    });
    const { messages } = built;
    onRequest(messages);
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
      return await streamModelResponse({
        model,
        registry: await turnRegistry({ deps, ctx, workflowId }),
        observers: deps.observers,
        turnId,
        responseIndex,
        messages,
        readFiles: deps.files.read,
        idempotencyKey: idempotencyKey ?? modelRequestKey({ revision: 1, turnId, responseIndex }),
        continuation: built.continuation,
        output,
        signal: ctx.cancellationSignal,
        priorCallIds: new Set(request.callIds),
        maxArgumentBytes,
        onPart: (part) => {
          live.add(part);
          ctx.heartbeat(live.details());
        },
        // Hand the finished call to the workflow now, so it can start before the stream ends.
        onCall: (call) => handOver.push(call),
        // Calls of a burst that the stream's end overtook go with the response instead of an
        // Update of their own: they could start no sooner that way, and each Update is a workflow
        // task and two events more in history. Calls already handed over are in history once (in
        // their update): left out of the response.
        handedOver: async () => {
          handOver.close();
          await handOver.drain();
          return handedOver;
        },
      });
    } catch (error) {
      // A cancelled request ends as cancelled (a worker shutting down retries it elsewhere),
      // whatever the aborted stream or hand-over threw on the way out.
      if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? error;
      throw activityFailureOf(error);
    }
  }
}

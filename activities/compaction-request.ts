import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  type CompactContextInput,
  type CompactContextOutput,
  compactContextInputSchema,
  type ModelRouted,
  modelFailedType,
  modelRejectedType,
} from '../contract/activities';
import { modelRequestQuery } from '../contract/turn-workflow';
import type { EarlierTurns } from '../core';
import { requestSummary } from '../models/request-summary';
import { traceModelRequest } from '../tracing/trace-model-request';
import { type ActivityDeps, heartbeatEvery, parseInput, withDeadline } from './activity-support';
import { checkOriginOnTemporal, readTurnContext } from './earlier-turns';
import { activityFailureOf, workerModel } from './model-activity-failures';
import { readModelRequest } from './read-model-request';
import type { TranscriptCache } from './transcript-cache';

/**
 * The worker side of a compaction's summary request (`compactContext`): reads the turn's messages
 * from its workflow as a model request does (the same query and cache; the conversation's earlier
 * turns as a request reads them), asks the model for the summary (`requestSummary`, the same as in
 * process) and returns it. Failures are typed as a model request's, so the engine retries the same.
 */
export function compactionActivity({
  deps,
  transcripts,
  earlierTurns,
}: {
  deps: ActivityDeps;
  transcripts: TranscriptCache;
  earlierTurns: EarlierTurns;
}): (input: CompactContextInput) => Promise<CompactContextOutput | ModelRouted> {
  return async function compactContext(
    input: CompactContextInput,
  ): Promise<CompactContextOutput | ModelRouted> {
    const parsed = parseInput(compactContextInputSchema, input, 'compactContext');
    const { turnId, workflowId, responseIndex, model: modelName, conversation } = parsed;
    const model = workerModel(deps, modelName);
    const ctx = Context.current();
    // A rate-limited model's summary requests count against its limit too: on its own queue.
    const routedTo = deps.modelQueues?.get(modelName);
    if (parsed.routable && routedTo !== undefined && ctx.info.taskQueue !== routedTo) return { routedTo };
    const beat = setInterval(() => ctx.heartbeat(), heartbeatEvery(ctx));
    const workflow = ctx.client.workflow.getHandle(workflowId);
    const readTimeoutMs = Math.max(5_000, ctx.info.heartbeatTimeoutMs ?? 0);
    try {
      const request = await withDeadline(
        readModelRequest({
          workflowId,
          transcripts,
          query: (known, page) =>
            Promise.race([workflow.query(modelRequestQuery, responseIndex, known, page), ctx.cancelled]),
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
          `turn ${turnId} is no longer compacting before response ${responseIndex}`,
          modelRejectedType,
        );
      const earlier =
        conversation && !parsed.previous
          ? await earlierTurns.before({
              ...conversation,
              read: (id) => readTurnContext(ctx.client, id),
              checkOrigin: checkOriginOnTemporal(ctx.client),
            })
          : [];
      return await traceModelRequest({
        tracing: deps.tracing,
        model: modelName,
        turnId,
        responseIndex,
        run: ({ input }) =>
          requestSummary({
            model,
            turnId,
            responseIndex,
            op: {
              ...parsed,
              kind: 'compact',
              attempt: ctx.info.attempt,
              messages: request.messages,
              timeoutMs: 0,
            },
            earlier,
            readFiles: deps.files.read,
            signal: ctx.cancellationSignal,
            onRequest: input,
          }),
      });
    } catch (error) {
      if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? error;
      throw activityFailureOf(error);
    } finally {
      clearInterval(beat);
    }
  };
}

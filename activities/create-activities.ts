import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  buildModelResponse,
  type HostTimers,
  ModelError,
  type ModelResponse,
  runToolAttempt,
  type ToolHealthRegistry,
  type ToolRegistry,
  type TurnHooks,
  type TurnModel,
  type TurnObserver,
} from '../core';
import { streamResponse } from '../models';
import { toolSpecs } from '../models/tool-specs';
import { modelRequestQuery } from '../workflows/definitions';
import type { CallModelInput, RunToolInput, RunToolOutput, TurnActivities } from './activity-types';

export interface ActivityDeps {
  registry: ToolRegistry;
  models: ReadonlyMap<string, TurnModel>;
  hooks: readonly TurnHooks[];
  observers: readonly TurnObserver[];
  health: ToolHealthRegistry;
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
  return {
    async callModel({
      turnId,
      workflowId,
      responseIndex,
      model: modelName,
    }: CallModelInput): Promise<ModelResponse> {
      const ctx = Context.current();
      const model = deps.models.get(modelName);
      if (!model) {
        throw ApplicationFailure.nonRetryable(
          `unknown model ${JSON.stringify(modelName)}; this worker has: ${[...deps.models.keys()].join(', ') || '(none)'}`,
          'ModelRequestRejected',
        );
      }
      // The transcript is read from the workflow, not passed in: activity inputs enter history
      // every time, and a transcript per request would grow history with the square of the turn.
      const request = await ctx.client.workflow.getHandle(workflowId).query(modelRequestQuery, responseIndex);
      if (!request)
        throw ApplicationFailure.nonRetryable(
          `turn ${turnId} is no longer waiting for response ${responseIndex}`,
          'ModelRequestRejected',
        );
      const beat = setInterval(() => ctx.heartbeat(), heartbeatEvery(ctx));
      try {
        const { collected, broken } = await streamResponse({
          model,
          request: {
            turnId,
            responseIndex,
            messages: request.messages,
            tools: toolSpecs(deps.registry),
            idempotencyKey: `${turnId}/model/${responseIndex}`,
            signal: ctx.cancellationSignal,
          },
          observers: deps.observers,
          onPart: () => ctx.heartbeat(),
        });
        return buildModelResponse({
          collected,
          registry: deps.registry,
          responseIndex,
          priorCallIds: new Set(request.callIds),
          ...(broken ? { partialReason: `the response stream broke: ${broken.message}` } : {}),
        });
      } catch (error) {
        if (ModelError.isInstance(error)) {
          if (!error.retryable) throw ApplicationFailure.nonRetryable(error.message, 'ModelRequestRejected');
          throw ApplicationFailure.create({
            message: error.message,
            type: 'ModelRequestFailed',
            ...(error.retryAfterMs !== undefined ? { nextRetryDelay: error.retryAfterMs } : {}),
          });
        }
        throw error;
      } finally {
        clearInterval(beat);
      }
    },

    async runTool({ turnId, call, attempt, approved, maxOutputBytes }: RunToolInput): Promise<RunToolOutput> {
      const ctx = Context.current();
      // Heartbeat on our own as well as when the tool does: cancellation reaches an activity only
      // through heartbeats, and a lost worker is noticed by their absence.
      const beat = setInterval(() => ctx.heartbeat(), heartbeatEvery(ctx));
      try {
        return await runToolAttempt({
          turnId,
          call,
          attempt,
          approved,
          maxOutputBytes,
          registry: deps.registry,
          hooks: deps.hooks,
          observers: deps.observers,
          health: deps.health,
          timers,
          signal: ctx.cancellationSignal,
          heartbeat: (details) => ctx.heartbeat(details),
        });
      } finally {
        clearInterval(beat);
      }
    },
  };
}

function heartbeatEvery(ctx: Context): number {
  const timeout = ctx.info.heartbeatTimeoutMs ?? 10_000;
  return Math.max(100, Math.floor(timeout / 3));
}

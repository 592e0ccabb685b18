import { ApplicationFailure } from '@temporalio/common';
import { modelContextOverflowType, modelFailedType, modelRejectedType } from '../contract/activities';
import { ModelError, type TurnModel } from '../core';
import type { ActivityDeps } from './activity-support';

/**
 * The worker's model by name, for a request or a summary request; a name it does not have is a
 * rejection (another attempt on this fleet would not find it either).
 */
export function workerModel(deps: ActivityDeps, modelName: string): TurnModel {
  const model = deps.models.get(modelName);
  if (!model)
    throw ApplicationFailure.nonRetryable(
      `unknown model ${JSON.stringify(modelName)}; this worker has: ${[...deps.models.keys()].join(', ') || '(none)'}`,
      modelRejectedType,
    );
  return model;
}

/**
 * A model's failure as the activity's, typed so the workflow tells the kinds apart (see
 * `modelFailureOf`): a context overflow, a rejection, or a transient failure with the provider's
 * Retry-After. Anything that is not a `ModelError` is thrown as it is.
 */
export function activityFailureOf(error: unknown): unknown {
  if (!ModelError.isInstance(error)) return error;
  if (error.kind === 'context-overflow')
    return ApplicationFailure.nonRetryable(error.message, modelContextOverflowType);
  if (!error.retryable) return ApplicationFailure.nonRetryable(error.message, modelRejectedType);
  return ApplicationFailure.create({
    message: error.message,
    type: modelFailedType,
    ...(error.retryAfterMs !== undefined
      ? { nextRetryDelay: error.retryAfterMs, details: [{ retryAfterMs: error.retryAfterMs }] }
      : {}),
  });
}

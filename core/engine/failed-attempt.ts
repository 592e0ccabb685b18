import { backoffDelay } from '../tools/retry-decision';
import type { ModelFailure } from './engine-types';
import type { TurnState } from './turn-state';

/**
 * A failed request (a turn's or a summary's) as recorded, and whether it is asked again: a transient
 * failure is, after the model's backoff (or the provider's Retry-After), until its attempts run out.
 */
export function failedAttempt(
  state: TurnState,
  { attempt, error, now }: { attempt: number; error: ModelFailure; now: number },
): {
  retry: boolean;
  record: { attempt: number; error: string; retryable: boolean; at: number; retryAt?: number };
} {
  const policy = state.config.modelRetry;
  const retry = error.retryable && attempt < policy.maxAttempts && !state.halt;
  const retryAt = retry ? now + (error.retryAfterMs ?? backoffDelay(policy, attempt)) : undefined;
  return {
    retry,
    record: {
      attempt,
      error: error.message,
      retryable: error.retryable,
      at: now,
      ...(retryAt !== undefined ? { retryAt } : {}),
    },
  };
}

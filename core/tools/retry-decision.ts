import type { AttemptResult } from '../schema/attempt-result';
import type { RetryPolicy } from '../schema/retry-policy';

/**
 * Whether a finished attempt is tried again, and after how long. Only errors the tool reported as
 * retryable are retried (timeouts are; invalid arguments, blocks and open circuits are not), up to
 * the policy's attempts, with exponential backoff. Deterministic: the same history gives the same
 * answer on replay.
 */
export function retryDelay({
  policy,
  attempt,
  result,
}: {
  policy: RetryPolicy;
  attempt: number;
  result: AttemptResult;
}): number | undefined {
  if (result.status !== 'error' || !result.retryable) return undefined;
  if (attempt >= policy.maxAttempts) return undefined;
  if (policy.nonRetryableErrorTypes.includes(result.errorType)) return undefined;
  return backoffDelay(policy, attempt);
}

/** The wait after failed attempt `attempt` (1-based): exponential from the initial delay, capped. */
export function backoffDelay(policy: RetryPolicy, attempt: number): number {
  const delay = policy.initialDelayMs * policy.backoffCoefficient ** (attempt - 1);
  return Math.min(Math.round(delay), policy.maxDelayMs);
}

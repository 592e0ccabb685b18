import type { RetryPolicy } from 'durable-turns';
import type { FuzzCase } from './fuzz-case';

/**
 * How long one scripted request may take on this machine: the server scripts no delays, so this is
 * the time to move the largest body (a megabyte of arguments, out and back) through the SDK and the
 * engine on two busy cores, with room to spare.
 */
export const fuzzRequestAllowanceMs = 5_000;

/**
 * The longest a fuzz turn can legitimately run: every scripted reply plus the closing answer served
 * once, and before each a retry wait — the policy's longest backoff, or the reply's own retry-after
 * when it asks for longer. A turn still running after this is stuck, not slow.
 */
export function fuzzTurnTimeoutMs(fuzzCase: FuzzCase, policy: RetryPolicy): number {
  const requests = fuzzCase.replies.length + 1;
  const waits = fuzzCase.replies.reduce(
    (sum, reply) => sum + Math.max(policy.maxDelayMs, reply.retryAfterMs ?? 0),
    0,
  );
  return requests * fuzzRequestAllowanceMs + waits;
}

import { z } from 'zod';

/** How often a failing tool call is tried, and how long to wait in between. */
export const retryPolicySchema = z.object({
  maxAttempts: z.number().int().positive().default(1),
  initialDelayMs: z.number().int().nonnegative().default(200),
  backoffCoefficient: z.number().min(1).default(2),
  maxDelayMs: z.number().int().nonnegative().default(30_000),
  /** Error names (the thrown error's `name` or class) that are never retried. */
  nonRetryableErrorTypes: z.array(z.string()).default([]),
});
export type RetryPolicy = z.infer<typeof retryPolicySchema>;
export type RetryPolicyInput = z.input<typeof retryPolicySchema>;

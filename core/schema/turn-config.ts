import { z } from 'zod';
import { retryPolicySchema } from './retry-policy';

/** When a model asks for many calls at once, this many run together unless told otherwise. */
export const defaultMaxConcurrency = 8;

export const dispatchConfigSchema = z.object({
  /** `parallel` plans waves of concurrency-safe calls; `sequential` runs one call at a time. */
  mode: z.enum(['parallel', 'sequential']).default('parallel'),
  /** At most this many calls of a wave run at once (clamped to 1…batch size). */
  maxConcurrency: z.number().int().positive().default(defaultMaxConcurrency),
});

export const budgetSchema = z
  .object({
    maxModelResponses: z.number().int().positive(),
    maxToolCalls: z.number().int().positive(),
    maxTokens: z.number().int().positive(),
    maxWallTimeMs: z.number().int().positive(),
  })
  .partial();

export const detectionThresholdsSchema = z.object({
  /** The same call with the same result this many times adds a warning for the model. */
  warnAfter: z.number().int().positive(),
  /** …and this many times stops the turn as `loop_detected`. */
  stopAfter: z.number().int().positive(),
});

export const detectionConfigSchema = z.object({
  enabled: z.boolean().default(true),
  warnAfter: z.number().int().positive().default(3),
  stopAfter: z.number().int().positive().default(10),
  /** Per-tool thresholds, by tool name. */
  perTool: z.record(z.string(), detectionThresholdsSchema.partial()).default({}),
});

export const approvalConfigSchema = z.object({
  /** A call that waits longer than this for a decision is rejected (an explicit error output). */
  timeoutMs: z.number().int().positive().optional(),
});

/**
 * Retries of a failed model request, decided by the engine for every executor: transient failures
 * (connection resets, 429, 5xx, a broken stream before any call was accepted) are tried again
 * after a backoff (a provider's Retry-After wins); a rejection (400, unknown model) is not.
 */
export const defaultModelRetry = {
  maxAttempts: 5,
  initialDelayMs: 500,
  backoffCoefficient: 2,
  maxDelayMs: 30_000,
  nonRetryableErrorTypes: [],
};

/**
 * How long one attempt may take when the tool (or the request) sets nothing: a tool whose
 * promise never settles must not hold a turn forever, on any executor.
 */
export const timeoutsConfigSchema = z.object({
  toolMs: z
    .number()
    .int()
    .positive()
    .default(10 * 60_000),
  modelMs: z
    .number()
    .int()
    .positive()
    .default(5 * 60_000),
});

export const limitsConfigSchema = z.object({
  /**
   * A call whose arguments are larger than this (bytes of JSON) is not run: it gets an error
   * output and its arguments are left out of the transcript, so one oversized call cannot push
   * a turn past Temporal's payload limits (2 MiB) or every later request's context.
   */
  maxArgumentBytes: z
    .number()
    .int()
    .positive()
    .default(256 * 1024),
});

export const turnConfigSchema = z.object({
  dispatch: dispatchConfigSchema.default({ mode: 'parallel', maxConcurrency: defaultMaxConcurrency }),
  budget: budgetSchema.default({}),
  detection: detectionConfigSchema.default({ enabled: true, warnAfter: 3, stopAfter: 10, perTool: {} }),
  approvals: approvalConfigSchema.default({}),
  modelRetry: retryPolicySchema.default(defaultModelRetry),
  timeouts: timeoutsConfigSchema.default({ toolMs: 10 * 60_000, modelMs: 5 * 60_000 }),
  limits: limitsConfigSchema.default({ maxArgumentBytes: 256 * 1024 }),
});

export type DispatchConfig = z.infer<typeof dispatchConfigSchema>;
export type ApprovalConfig = z.infer<typeof approvalConfigSchema>;
export type Budget = z.infer<typeof budgetSchema>;
export type DetectionConfig = z.infer<typeof detectionConfigSchema>;
export type TimeoutsConfig = z.infer<typeof timeoutsConfigSchema>;
export type LimitsConfig = z.infer<typeof limitsConfigSchema>;
export type TurnConfig = z.infer<typeof turnConfigSchema>;
export type TurnConfigInput = z.input<typeof turnConfigSchema>;

import { z } from 'zod';

export const dispatchConfigSchema = z.object({
  /** `parallel` plans waves of concurrency-safe calls; `sequential` runs one call at a time. */
  mode: z.enum(['parallel', 'sequential']).default('parallel'),
  /** At most this many calls of a wave run at once (clamped to 1…batch size). */
  maxConcurrency: z.number().int().positive().default(8),
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

export const turnConfigSchema = z.object({
  dispatch: dispatchConfigSchema.default({ mode: 'parallel', maxConcurrency: 8 }),
  budget: budgetSchema.default({}),
  detection: detectionConfigSchema.default({ enabled: true, warnAfter: 3, stopAfter: 10, perTool: {} }),
  approvals: approvalConfigSchema.default({}),
});

export type DispatchConfig = z.infer<typeof dispatchConfigSchema>;
export type ApprovalConfig = z.infer<typeof approvalConfigSchema>;
export type Budget = z.infer<typeof budgetSchema>;
export type DetectionConfig = z.infer<typeof detectionConfigSchema>;
export type TurnConfig = z.infer<typeof turnConfigSchema>;
export type TurnConfigInput = z.input<typeof turnConfigSchema>;

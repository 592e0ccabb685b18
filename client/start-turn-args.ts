import { z } from 'zod';
import { activityTimingSchema, turnWorkflowInputSchema } from '../contract/turn-workflow';
import {
  approvalConfigSchema,
  budgetSchema,
  compactionConfigSchema,
  continuationSchema,
  conversationIdSchema,
  detectionConfigSchema,
  dispatchConfigSchema,
  limitsConfigSchema,
  outputConfigOf,
  retryPolicySchema,
  type StructuredOutputInput,
  timeoutsConfigSchema,
  turnIdSchema,
  turnInputSchema,
} from '../core';

/** What `TurnClient.start` takes, checked before anything reaches Temporal. */
export const startTurnSchema = z.object({
  turnId: turnIdSchema,
  conversationId: conversationIdSchema.optional(),
  input: turnInputSchema,
  model: z.string().min(1),
  dispatch: dispatchConfigSchema.partial().optional(),
  budget: budgetSchema.optional(),
  detection: detectionConfigSchema.partial().optional(),
  approvals: approvalConfigSchema.optional(),
  /** Retries of a failed model request, decided by the engine (default 5 attempts from 500 ms). */
  modelRetry: retryPolicySchema.partial().optional(),
  /** Default time limits of a tool attempt and a model request. */
  timeouts: timeoutsConfigSchema.partial().optional(),
  limits: limitsConfigSchema.partial().optional(),
  /** `since-receipt`: requests send only what is new since the provider's last response id (see `continuationSchema`). */
  continuation: continuationSchema.optional(),
  /** Compact the context when it would overflow (see `compactionConfigSchema`); absent: never. */
  compaction: compactionConfigSchema.optional(),
  /**
   * A structured answer (see `OutputConfig`): its `schema` a zod schema (converted to JSON Schema
   * here, before anything is sent) or a JSON Schema; the result's `output` holds the value.
   */
  output: z
    .custom<StructuredOutputInput>(
      (value) => typeof value === 'object' && value !== null && 'schema' in value,
      {
        message: 'output needs a schema (a zod schema or a JSON Schema)',
      },
    )
    .transform((value, ctx) => {
      try {
        return outputConfigOf(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    })
    .optional(),
  /** Heartbeat timeout; `toolTimeoutMs`, `modelTimeoutMs` and `modelMaxAttempts` are the older names of `timeouts` and `modelRetry`. */
  timing: activityTimingSchema.partial().optional(),
  continueAsNewAfterEvents: z.number().int().positive().optional(),
  maxOutputBytes: z.number().int().positive().optional(),
  /** Set by `TurnClient.fork`: the record the turn begins with (see `forkPrefix`). */
  fork: turnWorkflowInputSchema.shape.fork,
  /** A turn with this id is already running: attach to it (default) or fail. */
  ifRunning: z.enum(['attach', 'fail']).default('attach'),
});
export type StartTurnArgs = z.input<typeof startTurnSchema>;

import { z } from 'zod';
import { type ApprovalGrant, approvalGrantSchema, maxGrantsInForce } from './approval-grant';
import { type RetryPolicyInput, retryPolicySchema } from './retry-policy';

/** When a model asks for many calls at once, this many run together unless told otherwise. */
export const defaultMaxConcurrency = 8;

export const dispatchConfigSchema = z.object({
  /** `parallel` plans waves of concurrency-safe calls; `sequential` runs one call at a time. */
  mode: z.enum(['parallel', 'sequential']).default('parallel'),
  /** At most this many calls of a wave run at once (clamped to 1…batch size). */
  maxConcurrency: z.number().int().positive().default(defaultMaxConcurrency),
  /**
   * On Temporal, quick calls that run one after another run in one local activity (a chain; see
   * core's `runQuickChain`), not one each. `false` gives each attempt its own local activity (and
   * its own row in the Web UI) at ~2 ms a call more. Absent: chained.
   */
  chainQuickCalls: z.boolean().optional(),
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

/**
 * Convergence: results of one tool that keep coming back nearly the same (different queries that
 * find the same page, a listing where only a timestamp moves) mean the model learns nothing new.
 * That earns a warning, never a stop: a healthy poll of a slowly changing status looks the same.
 */
export const convergenceConfigSchema = z.object({
  enabled: z.boolean().default(true),
  /** Two results at least this alike (0…1, estimated on their JSON text) count as nearly the same. */
  similarity: z.number().min(0).max(1).default(0.95),
  /** This many nearly-same results of a tool in a row add a warning for the model. */
  warnAfter: z.number().int().min(2).default(3),
  /**
   * Results shorter than this are not judged: an acknowledgement ("ok", "file written") says
   * nothing about progress, and three writes in a row all answer the same.
   */
  minChars: z.number().int().nonnegative().default(64),
});

export const detectionConfigSchema = z.object({
  enabled: z.boolean().default(true),
  warnAfter: z.number().int().positive().default(3),
  stopAfter: z.number().int().positive().default(10),
  /**
   * Repeats and cycles are judged among this many most recent attempts, and the detector remembers
   * no more (it is carried across continue-as-new). 50 holds ten repeats of a four-call cycle, and a
   * long turn that re-reads a file every few dozen productive calls is not a loop. A threshold above
   * the window is never reached by counting; a window filled by one repeating call or cycle stops
   * the turn instead.
   */
  window: z.number().int().min(4).default(50),
  // prefault: an absent object is parsed as `{}`, so the field defaults above are the only ones.
  convergence: convergenceConfigSchema.prefault({}),
  /** Per-tool thresholds, by tool name. */
  perTool: z.record(z.string(), detectionThresholdsSchema.partial()).default({}),
});

export const approvalConfigSchema = z.object({
  /** A call that waits longer than this for a decision is rejected (an explicit error output). */
  timeoutMs: z.number().int().positive().optional(),
  /** Grants the turn starts with (a conversation's, or the caller's): covered calls run without asking. */
  grants: z
    .array(approvalGrantSchema)
    .max(2 * maxGrantsInForce)
    .optional(),
  /** On Temporal, take only decisions, grants and revocations signed with a key the workers hold (docs/signed-approvals.md). */
  signed: z.boolean().optional(),
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
  /**
   * How long the turn waits, once the model has answered without calls, for background calls still
   * running (unset: as long as they run, within the wall-time budget). Calls still running then are
   * stopped and delivered as interrupted, and the model is asked again.
   */
  maxBackgroundWaitMs: z.number().int().positive().optional(),
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

/**
 * What a model request carries: the whole transcript (`full`, the default), or — for providers
 * that keep the conversation (the OpenAI Responses API) — only what came after the last response
 * the provider answered with an id (`since-receipt`), which it continues from.
 */
export const continuationSchema = z.enum(['full', 'since-receipt']);

/** What the model is asked when a turn's context is compacted (its answer is the summary). */
export const defaultCompactionInstruction =
  'The conversation above is about to be replaced by your summary of it, because it no longer fits your context. ' +
  'Write that summary now, for yourself: what the user wants, what was decided and done, the facts and results ' +
  'you will still need (names, numbers, paths, ids), and what is still open. Answer with the summary only.';

/**
 * Compaction: when a turn's context would overflow, the engine asks the model to summarise what came
 * before the message being answered (the conversation's earlier turns too), records the summary
 * (`context.compacted`), and later requests send it in place of what it covers. It runs when the
 * provider answers that the context is too long, and — with `maxContextTokens` — before a request
 * once the last response's context (its input and output tokens) reached that many.
 */
export const compactionConfigSchema = z.object({
  maxContextTokens: z.number().int().positive().optional(),
  instruction: z.string().min(1).max(10_000).default(defaultCompactionInstruction),
});

/**
 * A structured answer: the model's final answer must be JSON matching `schema` (a JSON Schema; the
 * client converts a zod schema), asked of the provider natively where it can. An answer that does
 * not match is asked again, with what was wrong, at most `maxRetries` times; then the turn fails
 * with the validation errors. The typed value is the result's `output`.
 */
export const outputConfigSchema = z.object({
  schema: z.record(z.string(), z.unknown()),
  /** What the answer is, for providers that name a response format (letters, digits, `_`, `-`). */
  name: z
    .string()
    .regex(/^[a-zA-Z0-9_-]{1,64}$/)
    .optional(),
  maxRetries: z.number().int().min(0).max(10).default(2),
});
export type OutputConfig = z.infer<typeof outputConfigSchema>;
export type OutputConfigInput = z.input<typeof outputConfigSchema>;

export const turnConfigSchema = z.object({
  dispatch: dispatchConfigSchema.default({ mode: 'parallel', maxConcurrency: defaultMaxConcurrency }),
  budget: budgetSchema.default({}),
  detection: detectionConfigSchema.prefault({}),
  approvals: approvalConfigSchema.default({}),
  modelRetry: retryPolicySchema.default(defaultModelRetry),
  timeouts: timeoutsConfigSchema.default({ toolMs: 10 * 60_000, modelMs: 5 * 60_000 }),
  limits: limitsConfigSchema.default({ maxArgumentBytes: 256 * 1024 }),
  /** Absent: `full`. */
  continuation: continuationSchema.optional(),
  /** Absent: no compaction (a context that overflows fails the turn, as the provider says). */
  compaction: compactionConfigSchema.optional(),
  /** Absent: the answer is free text. */
  output: outputConfigSchema.optional(),
});

export type DispatchConfig = z.infer<typeof dispatchConfigSchema>;
export type ApprovalConfig = z.infer<typeof approvalConfigSchema>;
export type ApprovalConfigInput = z.input<typeof approvalConfigSchema>;
export type Budget = z.infer<typeof budgetSchema>;
export type DetectionConfig = z.infer<typeof detectionConfigSchema>;
export type TimeoutsConfig = z.infer<typeof timeoutsConfigSchema>;
export type LimitsConfig = z.infer<typeof limitsConfigSchema>;
export type ConvergenceConfig = z.infer<typeof convergenceConfigSchema>;
export type CompactionConfig = z.infer<typeof compactionConfigSchema>;
export type CompactionConfigInput = z.input<typeof compactionConfigSchema>;
export type TurnConfig = z.infer<typeof turnConfigSchema>;
export type TurnConfigInput = z.input<typeof turnConfigSchema>;

/** What a caller names of a turn's configuration: each section whole or in part. */
export interface TurnConfigChoices {
  dispatch?: Partial<TurnConfigInput['dispatch']> | undefined;
  budget?: TurnConfigInput['budget'] | undefined;
  detection?: Partial<TurnConfigInput['detection']> | undefined;
  approvals?: TurnConfigInput['approvals'] | undefined;
  /** A patch over `defaultModelRetry`: naming one field keeps the others' defaults. */
  modelRetry?: Partial<RetryPolicyInput> | undefined;
  timeouts?: Partial<TurnConfigInput['timeouts']> | undefined;
  limits?: Partial<TurnConfigInput['limits']> | undefined;
  continuation?: TurnConfigInput['continuation'] | undefined;
  compaction?: TurnConfigInput['compaction'] | undefined;
  output?: TurnConfigInput['output'] | undefined;
}

/**
 * The configuration a turn runs with, from what its caller named, the same on both hosts (the
 * client's workflow input and the in-process executor): each section over its schema's defaults,
 * and `modelRetry` over the engine's default retry, not the retry schema's own defaults (which
 * would make `{ initialDelayMs: 50 }` one attempt).
 */
export function turnConfigOf(choices: TurnConfigChoices): TurnConfigInput {
  return {
    dispatch: choices.dispatch ?? {},
    budget: choices.budget ?? {},
    detection: choices.detection ?? {},
    approvals: choices.approvals ?? {},
    modelRetry: { ...defaultModelRetry, ...choices.modelRetry },
    timeouts: choices.timeouts ?? {},
    limits: choices.limits ?? {},
    ...(choices.continuation ? { continuation: choices.continuation } : {}),
    ...(choices.compaction ? { compaction: choices.compaction } : {}),
    ...(choices.output ? { output: choices.output } : {}),
  };
}

/** A turn's configuration with grants it starts with added (a grant of the same id replaces the configured one). */
export function withGrants(config: TurnConfig, grants: readonly ApprovalGrant[]): TurnConfig {
  if (grants.length === 0) return config;
  const ids = new Set(grants.map((g) => g.grantId));
  const kept = (config.approvals.grants ?? []).filter((g) => !ids.has(g.grantId));
  return { ...config, approvals: { ...config.approvals, grants: [...kept, ...grants] } };
}

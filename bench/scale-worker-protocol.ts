/**
 * What bench/scale.ts and the worker process it forks (bench/scale-worker.ts) say to each other
 * over the IPC channel. The worker runs in a process of its own so that process's resident memory
 * is the worker's alone: no dev server client, no bench bookkeeping, no workflow bundler.
 */
import { z } from 'zod';

export const scaleWorkerConfigSchema = z.object({
  /** `turn`: createTurnWorker; `floor`: a plain Worker running bench/wave-floor-workflow.ts. */
  kind: z.enum(['turn', 'floor']),
  address: z.string(),
  namespace: z.string(),
  taskQueue: z.string(),
  /** The prebuilt workflow code the worker loads (built by the parent, so no bundler runs here). */
  workflowBundlePath: z.string(),
  /** The Temporal runtime's Prometheus exporter (sticky cache size and forced evictions). */
  metricsPort: z.number().int().positive(),
  /** The turn's shape: `rounds` responses of `width` no-op calls each, then a text answer. */
  rounds: z.number().int().positive(),
  width: z.number().int().positive(),
  /**
   * Diagnosis: run the workflows on the main thread (the SDK's debugMode), so the main isolate's
   * heap figures include the workflows' state; off for every measured number by default.
   */
  workflowsInMainThread: z.boolean().default(false),
  /** The turn worker's activity slots (`maxConcurrentActivityTaskExecutions`); unset: the SDK's default (100). */
  activityTaskSlots: z.number().int().positive().optional(),
});
export type ScaleWorkerConfig = z.input<typeof scaleWorkerConfigSchema>;

/** The environment variable the config travels in (JSON). */
export const scaleWorkerConfigVariable = 'BENCH_SCALE_WORKER_CONFIG';

/** Names the turn worker registers. */
export const scaleModels = { waves: 'waves', approval: 'approval' } as const;
export const approvalToolName = 'approved_noop';
export const approvalCallId = 'a1';

const slotsSchema = z.union([z.number(), z.string()]);

export const workerSettingsSchema = z.object({
  maxCachedWorkflows: z.number(),
  /** Fixed slot counts (or the supplier's kind when not fixed). */
  workflowTaskSlots: slotsSchema,
  activityTaskSlots: slotsSchema,
  workflowTaskPollers: z.number(),
  activityTaskPollers: z.number(),
  reuseV8Context: z.boolean(),
  workflowThreadPoolSize: z.number(),
  heapSizeLimitMiB: z.number(),
});
export type WorkerSettings = z.infer<typeof workerSettingsSchema>;

export const workerStatsSchema = z.object({
  /** Counted in the worker process since it started. */
  executions: z.object({ tools: z.number(), approvalTools: z.number(), models: z.number() }),
  memory: z.object({
    rss: z.number(),
    heapTotal: z.number(),
    heapUsed: z.number(),
    external: z.number(),
    arrayBuffers: z.number(),
  }),
  numCachedWorkflows: z.number(),
  numInFlightWorkflowActivations: z.number(),
  numInFlightActivities: z.number(),
  /** From the runtime's metrics (null when the exporter did not answer). */
  stickyCache: z
    .object({
      size: z.number().nullable(),
      forcedEvictions: z.number(),
      hits: z.number(),
      misses: z.number(),
    })
    .nullable(),
});
export type WorkerStats = z.infer<typeof workerStatsSchema>;

/** Parent → worker. */
export const toWorkerSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('stats'), id: z.number() }),
  z.object({ type: z.literal('stop') }),
]);
export type ToWorker = z.infer<typeof toWorkerSchema>;

/** Worker → parent. */
export const fromWorkerSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready'), settings: workerSettingsSchema }),
  z.object({ type: z.literal('stats'), id: z.number(), stats: workerStatsSchema }),
  z.object({ type: z.literal('failed'), message: z.string() }),
]);
export type FromWorker = z.infer<typeof fromWorkerSchema>;

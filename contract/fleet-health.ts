import { defineQuery, defineSignal } from '@temporalio/workflow';
import { z } from 'zod';
import { healthHistoryOptionsSchema, healthPointSchema } from './fleet-health-history';

/**
 * The fleet health workflow: one per task queue, fed by every turn worker on that queue with its
 * tool health (signal-with-start every few seconds), answering the merged roster by query. It is
 * the only place an operator can see health that otherwise lives in each worker's memory.
 */
export const fleetHealthWorkflowType = 'fleetHealthWorkflow';

/** The fleet health workflow's id for a task queue: one roster per queue, found without a lookup. */
export function fleetHealthWorkflowId({ taskQueue }: { taskQueue: string }): string {
  return `durable-turns-health:${taskQueue}`;
}

/** One tool on one worker: `ToolHealthSnapshot` (core/health) as it crosses the wire. */
export const toolHealthSnapshotSchema = z.object({
  toolName: z.string().min(1).max(256),
  attempts: z.number().int().nonnegative(),
  successes: z.number().int().nonnegative(),
  failures: z.number().int().nonnegative(),
  timeouts: z.number().int().nonnegative(),
  consecutiveFailures: z.number().int().nonnegative(),
  latencyMs: z.object({ mean: z.number().nonnegative(), max: z.number().nonnegative() }),
  recentSuccessRate: z.number().min(0).max(1),
  status: z.enum(['healthy', 'degraded', 'unhealthy']),
  circuit: z.enum(['closed', 'open', 'half-open']),
  openUntil: z.number().optional(),
});
export type ToolHealthSnapshotWire = z.infer<typeof toolHealthSnapshotSchema>;

/**
 * Bounds that keep one report, and the roster carried across continue-as-new, far below
 * Temporal's 2 MB payload limit (a snapshot is ~300 bytes of JSON).
 */
export const fleetHealthLimits = { toolsPerReport: 500, identityLength: 256 } as const;

/** What a worker sends every `intervalMs`. */
export const workerHealthReportSchema = z.object({
  /** The Temporal worker identity (default `pid@hostname`): the roster's key. */
  identity: z.string().min(1).max(fleetHealthLimits.identityLength),
  /** The worker's clock when it took the snapshot (ms since the epoch); shown, never compared. */
  reportedAt: z.number(),
  intervalMs: z.number().int().positive(),
  /** Without a report for this long (workflow time since the last one arrived) the worker drops out. */
  ttlMs: z.number().int().positive(),
  tools: z.array(toolHealthSnapshotSchema).max(fleetHealthLimits.toolsPerReport),
});
export type WorkerHealthReport = z.infer<typeof workerHealthReportSchema>;

/** A worker in the roster: its last report and when the workflow received it (workflow time). */
export const fleetWorkerRecordSchema = workerHealthReportSchema.extend({
  receivedAt: z.number(),
  /** Reports received from this worker, across runs. */
  reports: z.number().int().positive(),
});
export type FleetWorkerRecord = z.infer<typeof fleetWorkerRecordSchema>;

/** The query's answer: the live roster. */
export const fleetHealthStateSchema = z.object({
  taskQueue: z.string(),
  /** Workflow time of the task that answered (the last signal or timer), not the asker's clock. */
  asOf: z.number(),
  /** Which run of the workflow answered (1 for the first; +1 at each continue-as-new). */
  run: z.number().int().positive(),
  workers: z.array(fleetWorkerRecordSchema),
});
export type FleetHealthState = z.infer<typeof fleetHealthStateSchema>;

export const fleetHealthWorkflowInputSchema = z.object({
  taskQueue: z.string().min(1),
  /** Set by the workflow itself at continue-as-new: the roster so far. */
  workers: z.array(fleetWorkerRecordSchema).default([]),
  /** Continue-as-new after this many signals in one run (or when the server suggests it). */
  continueAsNewAfterSignals: z.number().int().positive().default(500),
  run: z.number().int().positive().default(1),
  /** Success rates over time (`fleetHealthHistoryQuery`): how often, how far back, how big. */
  history: healthHistoryOptionsSchema.prefault({}),
  /** Set by the workflow itself at continue-as-new: the history so far. */
  historyPoints: z.array(healthPointSchema).default([]),
});
export type FleetHealthWorkflowInput = z.infer<typeof fleetHealthWorkflowInputSchema>;
export type FleetHealthWorkflowInputArgs = z.input<typeof fleetHealthWorkflowInputSchema>;

export const reportHealthSignal = defineSignal<[WorkerHealthReport]>('reportHealth');
/** A worker that stops gracefully leaves at once instead of waiting out its TTL. */
export const workerLeftSignal = defineSignal<[{ identity: string }]>('workerLeft');
export const fleetHealthQuery = defineQuery<FleetHealthState>('fleetHealth');

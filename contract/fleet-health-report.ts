import { z } from 'zod';

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

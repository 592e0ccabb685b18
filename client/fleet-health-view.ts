import { z } from 'zod';
import { type FleetHealthState, toolHealthSnapshotSchema } from '../contract/fleet-health';
import { weightedSuccessRate } from '../contract/fleet-health-history';

const statusSchema = toolHealthSnapshotSchema.shape.status;

/** A worker in the fleet: who, and when it last reported. Times are ISO strings (this is the JSON shape). */
export const fleetWorkerSchema = z.object({
  identity: z.string(),
  /** When the fleet health workflow received its last report (server time). */
  lastReportAt: z.string(),
  /** The worker's own clock when it took that snapshot. */
  reportedAt: z.string(),
  intervalMs: z.number(),
  ttlMs: z.number(),
  /** When it drops out of the view if no report comes before. */
  dropsOutAt: z.string(),
  reports: z.number(),
  toolCount: z.number(),
});
export type FleetWorker = z.infer<typeof fleetWorkerSchema>;

/** One tool on one worker, as that worker's registry sees it. */
export const workerToolHealthSchema = toolHealthSnapshotSchema.omit({ toolName: true }).extend({
  identity: z.string(),
});
export type WorkerToolHealth = z.infer<typeof workerToolHealthSchema>;

/** One tool across the workers that have run it. */
export const fleetToolAggregateSchema = z.object({
  workers: z.number(),
  attempts: z.number(),
  successes: z.number(),
  failures: z.number(),
  timeouts: z.number(),
  /** Mean over all attempts on all workers; max of the workers' maxima. */
  latencyMs: z.object({ mean: z.number(), max: z.number() }),
  /** The workers' recent success rates, weighted by their attempts (1 with none). */
  recentSuccessRate: z.number(),
  /** `healthy` / `unhealthy` when every worker says so, else `degraded`: some workers cannot use it. */
  status: statusSchema,
  circuits: z.object({ closed: z.number(), open: z.number(), halfOpen: z.number() }),
});
export type FleetToolAggregate = z.infer<typeof fleetToolAggregateSchema>;

export const fleetToolHealthSchema = z.object({
  toolName: z.string(),
  aggregate: fleetToolAggregateSchema,
  workers: z.array(workerToolHealthSchema),
});
export type FleetToolHealth = z.infer<typeof fleetToolHealthSchema>;

/** Tool health across every live worker of a task queue: what `FleetHealthClient.fleetHealth` returns. */
export const fleetHealthViewSchema = z.object({
  taskQueue: z.string(),
  workflowId: z.string(),
  /** When the roster was last updated (server time); null when no worker is reporting. */
  asOf: z.string().nullable(),
  workers: z.array(fleetWorkerSchema),
  tools: z.array(fleetToolHealthSchema),
});
export type FleetHealthView = z.infer<typeof fleetHealthViewSchema>;

/** The fleet view of a roster: workers by identity, tools by name, each with its aggregate. */
export function fleetHealthView({
  state,
  workflowId,
}: {
  state: FleetHealthState;
  workflowId: string;
}): FleetHealthView {
  const byTool = new Map<string, WorkerToolHealth[]>();
  for (const worker of state.workers) {
    for (const { toolName, ...snapshot } of worker.tools) {
      const list = byTool.get(toolName) ?? [];
      list.push({ identity: worker.identity, ...snapshot });
      byTool.set(toolName, list);
    }
  }
  return {
    taskQueue: state.taskQueue,
    workflowId,
    asOf: iso(state.asOf),
    workers: state.workers.map((w) => ({
      identity: w.identity,
      lastReportAt: iso(w.receivedAt),
      reportedAt: iso(w.reportedAt),
      intervalMs: w.intervalMs,
      ttlMs: w.ttlMs,
      dropsOutAt: iso(w.receivedAt + w.ttlMs),
      reports: w.reports,
      toolCount: w.tools.length,
    })),
    tools: [...byTool.keys()].sort().map((toolName) => {
      const workers = byTool.get(toolName) ?? [];
      return { toolName, aggregate: aggregateOf({ workers }), workers };
    }),
  };
}

/** The view of a task queue no worker reports on. */
export function emptyFleetHealthView({
  taskQueue,
  workflowId,
}: {
  taskQueue: string;
  workflowId: string;
}): FleetHealthView {
  return { taskQueue, workflowId, asOf: null, workers: [], tools: [] };
}

function aggregateOf({ workers }: { workers: readonly WorkerToolHealth[] }): FleetToolAggregate {
  const sum = (pick: (w: WorkerToolHealth) => number) => workers.reduce((n, w) => n + pick(w), 0);
  const attempts = sum((w) => w.attempts);
  const statuses = new Set(workers.map((w) => w.status));
  return {
    workers: workers.length,
    attempts,
    successes: sum((w) => w.successes),
    failures: sum((w) => w.failures),
    timeouts: sum((w) => w.timeouts),
    latencyMs: {
      mean: attempts === 0 ? 0 : sum((w) => w.latencyMs.mean * w.attempts) / attempts,
      max: Math.max(0, ...workers.map((w) => w.latencyMs.max)),
    },
    recentSuccessRate: weightedSuccessRate(workers),
    status: statuses.size === 1 ? ([...statuses][0] ?? 'healthy') : 'degraded',
    circuits: {
      closed: workers.filter((w) => w.circuit === 'closed').length,
      open: workers.filter((w) => w.circuit === 'open').length,
      halfOpen: workers.filter((w) => w.circuit === 'half-open').length,
    },
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

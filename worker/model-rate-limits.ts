import { Worker, type WorkerOptions, type WorkerPlugin } from '@temporalio/worker';
import { z } from 'zod';
import { modelTaskQueue } from '../contract/activities';
import { formatIssues } from '../core/schema/format-issues';

/**
 * A model's request rate across the whole fleet. Temporal's server holds it: the model's requests
 * go to a task queue of their own (`modelTaskQueue`), and the server dispatches from that queue at
 * most `requestsPerSecond` (`maxTaskQueueActivitiesPerSecond`), however many workers poll it —
 * so a provider's rate limit is not hit by every host at once.
 */
export const modelRateLimitSchema = z.object({
  requestsPerSecond: z.number().positive().finite(),
  /** Requests this worker runs at once for the model (each worker's own share; default: the SDK's). */
  maxConcurrentPerWorker: z.number().int().positive().optional(),
});
export type ModelRateLimit = z.infer<typeof modelRateLimitSchema>;

const limitsSchema = z.record(z.string().min(1), modelRateLimitSchema);

/** Each limited model's queue, checked against the models the worker serves. */
export function modelQueuesOf({
  limits,
  models,
  taskQueue,
}: {
  limits: Readonly<Record<string, ModelRateLimit>> | undefined;
  models: ReadonlyMap<string, unknown>;
  taskQueue: string;
}): Map<string, string> {
  const parsed = limitsSchema.safeParse(limits ?? {});
  if (!parsed.success)
    throw new Error(`modelRateLimits: ${formatIssues(parsed.error, { root: 'modelRateLimits' })}`);
  const unknown = Object.keys(parsed.data).filter((name) => !models.has(name));
  if (unknown.length > 0)
    throw new Error(
      `modelRateLimits names ${unknown.join(', ')}, which this worker does not serve (its models: ${[...models.keys()].join(', ')})`,
    );
  return new Map(Object.keys(parsed.data).map((model) => [model, modelTaskQueue({ taskQueue, model })]));
}

/**
 * One activity worker per limited model, polling its queue with the limit. Every worker of the
 * fleet should say the same rate: the server keeps the one the latest poll carried.
 */
export async function createModelWorkers({
  limits,
  queues,
  options,
}: {
  limits: Readonly<Record<string, ModelRateLimit>>;
  queues: ReadonlyMap<string, string>;
  /** The turn worker's own options, less its workflows. */
  options: Omit<WorkerOptions, 'taskQueue' | 'workflowBundle' | 'workflowsPath' | 'plugins'>;
}): Promise<Worker[]> {
  const workers: Worker[] = [];
  for (const [model, taskQueue] of queues) {
    const limit = limits[model];
    if (!limit) continue;
    workers.push(
      await Worker.create({
        ...options,
        taskQueue,
        maxTaskQueueActivitiesPerSecond: limit.requestsPerSecond,
        ...(limit.maxConcurrentPerWorker !== undefined
          ? { maxConcurrentActivityTaskExecutions: limit.maxConcurrentPerWorker }
          : {}),
      }),
    );
  }
  return workers;
}

/**
 * Runs the model workers while the turn worker runs (a plugin, so every way of running it counts),
 * and shuts them down after it; if one of them fails, the turn worker is shut down too (its turns
 * would wait for requests nobody takes).
 */
export function modelWorkersPlugin({
  workers,
  log,
}: {
  workers: readonly Worker[];
  log: (message: string) => void;
}): WorkerPlugin {
  return {
    name: 'durable-turns-model-rate-limits',
    runWorker: async (worker, next) => {
      const runs = workers.map((w) =>
        w.run().catch((error: unknown) => {
          log(
            `the worker for ${w.options.taskQueue} stopped: ${error instanceof Error ? error.message : String(error)}; shutting down`,
          );
          if (worker.getState() === 'RUNNING') worker.shutdown();
        }),
      );
      try {
        await next(worker);
      } finally {
        for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
        await Promise.all(runs);
      }
    },
  };
}

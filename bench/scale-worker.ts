/**
 * The worker process of bench/scale.ts (forked with `node --import tsx`, an IPC channel open): one
 * turn worker (createTurnWorker) or one hand-written floor worker, and nothing else, so the
 * process's resident memory is what that worker holds. It answers `stats` (executions counted
 * here, its memory, the worker's cache) and stops on `stop` or when the parent goes away.
 */

import { getHeapStatistics } from 'node:v8';
import { DefaultLogger, NativeConnection, Worker } from '@temporalio/worker';
import {
  defineTool,
  type ModelRequest,
  type ScriptedModel,
  scriptedModel,
  type TurnModel,
} from 'durable-turns';
import { createTurnWorker, installSdkMetrics } from 'durable-turns/worker';
import { z } from 'zod';
import { ExecutionCounter, NOOP_RESULT, noopSteps, noopTool } from './noop';
import {
  approvalCallId,
  approvalToolName,
  type FromWorker,
  type ScaleWorkerConfig,
  scaleModels,
  scaleWorkerConfigSchema,
  scaleWorkerConfigVariable,
  toWorkerSchema,
  type WorkerSettings,
  type WorkerStats,
} from './scale-worker-protocol';

const tools = new ExecutionCounter();
const approvalTools = new ExecutionCounter();
const models = new ExecutionCounter();

function send(message: FromWorker): void {
  process.send?.(message);
}

/**
 * Counts the model's requests and forgets them as each ends: a scripted model keeps every request
 * it was asked (with its transcript), which would bill the bench's bookkeeping to the worker.
 */
function counted(model: ScriptedModel): TurnModel {
  return {
    name: model.name,
    async *stream(request: ModelRequest) {
      models.count += 1;
      try {
        yield* model.stream(request);
      } finally {
        model.requests.splice(0);
      }
    },
  };
}

/** A no-op a person must approve before it runs. */
const approvedNoop = defineTool({
  name: approvalToolName,
  description: 'Does nothing once approved.',
  input: z.object({ i: z.number() }),
  concurrencySafe: true,
  requiresApproval: true,
  execute: () => {
    approvalTools.count += 1;
    return NOOP_RESULT;
  },
});

async function createWorker(config: ScaleWorkerConfig, connection: NativeConnection): Promise<Worker> {
  const common = { connection, namespace: config.namespace, taskQueue: config.taskQueue };
  if (config.kind === 'floor')
    return Worker.create({
      ...common,
      workflowBundle: { codePath: config.workflowBundlePath },
      activities: {
        floorModel: async () => {
          models.count += 1;
          return NOOP_RESULT;
        },
        floorNoop: async () => {
          tools.count += 1;
          return NOOP_RESULT;
        },
      },
    });
  return createTurnWorker({
    ...common,
    tools: [noopTool(tools), approvedNoop],
    models: [
      counted(
        scriptedModel(
          noopSteps(Array.from({ length: config.rounds }, () => config.width)),
          scaleModels.waves,
        ),
      ),
      counted(
        scriptedModel(
          [{ toolCalls: [{ id: approvalCallId, name: approvalToolName, args: { i: 0 } }] }, { text: 'done' }],
          scaleModels.approval,
        ),
      ),
    ],
    workflowBundlePath: config.workflowBundlePath,
    // Off so the cache holds turns only (the fleet health workflow would be one more entry).
    fleetHealth: false,
    worker: {
      ...(config.workflowsInMainThread ? { debugMode: true } : {}),
      ...(config.activityTaskSlots ? { maxConcurrentActivityTaskExecutions: config.activityTaskSlots } : {}),
    },
    tracing: false,
    encryption: false,
  });
}

function settingsOf(worker: Worker): WorkerSettings {
  const { options } = worker;
  const slots = (supplier: (typeof options.tuner)['workflowTaskSlotSupplier']) =>
    supplier.type === 'fixed-size' ? supplier.numSlots : supplier.type;
  const pollers = (behavior: typeof options.workflowTaskPollerBehavior) => behavior.maximum;
  return {
    maxCachedWorkflows: options.maxCachedWorkflows,
    workflowTaskSlots: slots(options.tuner.workflowTaskSlotSupplier),
    activityTaskSlots: slots(options.tuner.activityTaskSlotSupplier),
    workflowTaskPollers: pollers(options.workflowTaskPollerBehavior),
    activityTaskPollers: pollers(options.activityTaskPollerBehavior),
    reuseV8Context: options.reuseV8Context,
    workflowThreadPoolSize: options.workflowThreadPoolSize,
    heapSizeLimitMiB: Math.round(getHeapStatistics().heap_size_limit / 2 ** 20),
  };
}

/** Sums every sample of a metric (any labels) in Prometheus text; null when it is not there. */
function metricSum(text: string, name: string): number | null {
  let sum: number | null = null;
  for (const line of text.split('\n')) {
    const match = /^([a-z_:]+)(?:\{[^}]*\})? ([0-9.eE+-]+)$/.exec(line);
    if (match?.[1] === name) sum = (sum ?? 0) + Number(match[2]);
  }
  return sum;
}

async function stickyCache(port: number): Promise<WorkerStats['stickyCache']> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    // A counter appears in the export at its first increment: absent means none yet.
    const counter = (name: string) => metricSum(text, name) ?? 0;
    return {
      size: metricSum(text, 'temporal_sticky_cache_size'),
      forcedEvictions: counter('temporal_sticky_cache_total_forced_eviction_total'),
      hits: counter('temporal_sticky_cache_hit_total'),
      misses: counter('temporal_sticky_cache_miss_total'),
    };
  } catch {
    return null;
  }
}

async function statsOf(worker: Worker, config: ScaleWorkerConfig): Promise<WorkerStats> {
  const status = worker.getStatus();
  const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage();
  return {
    executions: { tools: tools.count, approvalTools: approvalTools.count, models: models.count },
    memory: { rss, heapTotal, heapUsed, external, arrayBuffers },
    numCachedWorkflows: status.numCachedWorkflows,
    numInFlightWorkflowActivations: status.numInFlightWorkflowActivations,
    numInFlightActivities: status.numInFlightActivities,
    stickyCache: await stickyCache(config.metricsPort),
  };
}

async function main(): Promise<void> {
  const config = scaleWorkerConfigSchema.parse(JSON.parse(process.env[scaleWorkerConfigVariable] ?? 'null'));
  installSdkMetrics({ port: config.metricsPort, logger: new DefaultLogger('WARN') });
  const connection = await NativeConnection.connect({ address: config.address });
  const worker = await createWorker(config, connection);
  const running = worker.run();
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      worker.shutdown();
      await running.catch(() => {});
      await connection.close().catch(() => {});
      process.exit(0);
    })();
    return stopping;
  };
  process.on('message', (raw: unknown) => {
    const message = toWorkerSchema.parse(raw);
    if (message.type === 'stop') void stop();
    else void statsOf(worker, config).then((stats) => send({ type: 'stats', id: message.id, stats }));
  });
  // The parent went away (crashed, killed): do not outlive it.
  process.on('disconnect', () => void stop());
  send({ type: 'ready', settings: settingsOf(worker) });
  await running;
}

main().catch((error: unknown) => {
  send({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exitCode = 1;
  // Let the IPC message go out before exiting.
  setTimeout(() => process.exit(1), 100);
});

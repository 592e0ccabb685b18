/**
 * A bench's worker as a process of its own (bench/worker-process.ts starts it), so it shares no
 * event loop with the client that times the turns and its resident memory is the worker's alone.
 * Connects to TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE and polls BENCH_TASK_QUEUE, as the peer's
 * worker does (bench/temporal-peer/worker.cjs). BENCH_WORKER_KIND=turn (default): createTurnWorker
 * with the no-op and wait tools and one scripted model per script in BENCH_SCRIPTS (JSON), the
 * bundle BENCH_WORKFLOW_BUNDLE if set, and with BENCH_LEAN=1 fleet health, tracing and encryption
 * off. BENCH_WORKER_KIND=floor: a plain Worker running the wave floor (bench/wave-floor-workflow.ts)
 * from the bundle BENCH_WORKFLOW_BUNDLE. Prints one JSON "ready" line, runs until SIGTERM.
 */
import { NativeConnection, Worker } from '@temporalio/worker';
import {
  defineTool,
  type ModelRequest,
  type ScriptedStep,
  scriptedModel,
  type TurnModel,
} from 'durable-turns';
import { createTurnWorker } from 'durable-turns/worker';
import { z } from 'zod';
import { ExecutionCounter, NOOP_RESULT, noopTool } from './noop';

const env = process.env;

const wait = defineTool({
  name: 'wait',
  description: 'Waits the given milliseconds, then answers.',
  input: z.object({ ms: z.number(), i: z.number() }),
  concurrencySafe: true,
  execute: async ({ ms, i }) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return `waited ${i}`;
  },
});

/** A scripted model that forgets each request as it ends (it keeps them all, transcripts too). */
function forgetful(name: string, steps: ScriptedStep[]): TurnModel {
  const model = scriptedModel(steps, name);
  return {
    name,
    async *stream(request: ModelRequest) {
      try {
        yield* model.stream(request);
      } finally {
        model.requests.splice(0);
      }
    },
  };
}

async function createWorker(connection: NativeConnection): Promise<Worker> {
  const common = {
    connection,
    namespace: env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue: env.BENCH_TASK_QUEUE ?? '',
  };
  const bundle = env.BENCH_WORKFLOW_BUNDLE || undefined;
  if (env.BENCH_WORKER_KIND === 'floor')
    return Worker.create({
      ...common,
      workflowBundle: { codePath: bundle ?? '' },
      activities: { floorModel: async () => NOOP_RESULT, floorNoop: async () => NOOP_RESULT },
    });
  const scripts = JSON.parse(env.BENCH_SCRIPTS ?? '{}') as Record<string, ScriptedStep[]>;
  return createTurnWorker({
    ...common,
    tools: [noopTool(new ExecutionCounter()), wait],
    models: Object.entries(scripts).map(([name, steps]) => forgetful(name, steps)),
    ...(bundle ? { workflowBundlePath: bundle } : {}),
    ...(env.BENCH_LEAN === '1' ? { fleetHealth: false, tracing: false, encryption: false } : {}),
    log: (message) => process.stderr.write(`${message}\n`),
  });
}

async function main() {
  const connection = await NativeConnection.connect({ address: env.TEMPORAL_ADDRESS ?? '' });
  const worker = await createWorker(connection);
  process.once('SIGTERM', () => worker.shutdown());
  const running = worker.run();
  while (worker.getState() === 'INITIALIZED') await new Promise((resolve) => setTimeout(resolve, 10));
  const { maxCachedWorkflows, reuseV8Context } = worker.options;
  const bundle = 'workflowBundle' in worker ? { workflowBundle: worker.workflowBundle } : {};
  process.stdout.write(
    `${JSON.stringify({ ready: true, settings: { maxCachedWorkflows, reuseV8Context }, ...bundle })}\n`,
  );
  await running;
  await connection.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

/**
 * Our turn worker as a process of its own, as the peer's is (bench/temporal-peer/worker.cjs), so
 * neither worker shares an event loop with the client that times the turns. Connects to
 * TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE, polls BENCH_TASK_QUEUE with createTurnWorker's defaults,
 * one scripted model per script in BENCH_SCRIPTS; prints one JSON "ready" line, runs until SIGTERM.
 *
 *   node --import tsx bench/outside-tool-time/our-worker.ts
 */
import { NativeConnection } from '@temporalio/worker';
import { defineTool, scriptedModel } from 'durable-turns';
import { createTurnWorker } from 'durable-turns/worker';
import { z } from 'zod';
import { ExecutionCounter, noopTool } from '../noop';
import { parseScripts } from './script';

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

async function main() {
  const scripts = parseScripts(process.env.BENCH_SCRIPTS);
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS ?? '' });
  const worker = await createTurnWorker({
    connection,
    namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue: process.env.BENCH_TASK_QUEUE ?? 'ours',
    tools: [noopTool(new ExecutionCounter()), wait],
    models: Object.entries(scripts).map(([name, steps]) => scriptedModel(steps, name)),
    log: (message) => process.stderr.write(`${message}\n`),
  });
  process.once('SIGTERM', () => worker.shutdown());
  const running = worker.run();
  while (worker.getState() === 'INITIALIZED') await new Promise((resolve) => setTimeout(resolve, 10));
  process.stdout.write(`${JSON.stringify({ ready: true, workflowBundle: worker.workflowBundle })}\n`);
  await running;
  await connection.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

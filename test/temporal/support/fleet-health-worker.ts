/**
 * A worker process for the fleet health test:
 * `tsx fleet-health-worker.ts <address> <namespace> <taskQueue> <identity> <failingTool|-> <intervalMs> <stickyTimeoutMs>`.
 * Its tools `lookup` and `steady` succeed, except the one named `failingTool`, which always throws
 * here — so the same tool is broken on one worker and fine on another. Prints `WORKER READY`.
 */
import { NativeConnection } from '@temporalio/worker';
import { defineTool } from 'durable-turns';
import { createTurnWorker } from 'durable-turns/worker';
import { z } from 'zod';
import { fleetScript } from './fleet-health-script';

const [address, namespace, taskQueue, identity, failingTool, intervalMs, stickyTimeoutMs] =
  process.argv.slice(2) as [string, string, string, string, string, string, string];

const tool = (name: string) =>
  defineTool({
    name,
    description: `${name} (fails on the worker told so)`,
    input: z.object({ n: z.number() }),
    concurrencySafe: true,
    execute: ({ n }) => {
      if (name === failingTool) throw new Error(`${name} is broken on ${identity}`);
      return `${name} ${n} on ${identity}`;
    },
  });

async function main() {
  const connection = await NativeConnection.connect({ address });
  const worker = await createTurnWorker({
    connection,
    namespace,
    taskQueue,
    tools: [tool('lookup'), tool('steady')],
    models: [fleetScript()],
    fleetHealth: { intervalMs: Number(intervalMs) },
    // A killed worker's cached workflows (the fleet health one too) wait this long on its sticky
    // queue before another worker takes them (10 s by default).
    worker: { identity, stickyQueueScheduleToStartTimeout: Number(stickyTimeoutMs) },
  });
  process.stdout.write('WORKER READY\n');
  await worker.run();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

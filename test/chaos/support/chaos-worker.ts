/**
 * A worker process for the chaos test: `tsx chaos-worker.ts <address> <namespace> <taskQueue>
 * <ledger> <plans.json> <heartbeatTimeoutMs>`. Prints `WORKER READY <pid>` once created
 * and connected, and polls once told `RUN` on its stdin; the pid is the one its tools write to
 * the ledger.
 */
import { readFileSync } from 'node:fs';
import { NativeConnection } from '@temporalio/worker';
import { createTurnWorker } from 'durable-turns/worker';
import { chaosModels, chaosTools } from './chaos-agent';
import type { ChaosPlan } from './chaos-plan';

const [address, namespace, taskQueue, ledger, plansFile, heartbeatTimeoutMs] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
  string,
];

async function main() {
  const plans = JSON.parse(readFileSync(plansFile, 'utf8')) as ChaosPlan[];
  const connection = await NativeConnection.connect({ address });
  const worker = await createTurnWorker({
    connection,
    namespace,
    taskQueue,
    tools: chaosTools(ledger),
    models: chaosModels(plans, ledger),
    // A killed worker's cached workflows wait this long on its sticky queue before another
    // worker takes them (10 s by default): as quick as a lost tool attempt is noticed.
    worker: { stickyQueueScheduleToStartTimeout: Number(heartbeatTimeoutMs) },
  });
  process.stdout.write(`WORKER READY ${process.pid}\n`);
  // A spare waits, bundled and connected, until the test needs it on the task queue.
  await new Promise<void>((resolve) => {
    process.stdin.on('data', (d) => {
      if (String(d).includes('RUN')) resolve();
    });
  });
  await worker.run();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

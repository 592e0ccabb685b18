/**
 * A worker process that runs the in-process crash turn's tools and script (test/support/executors/
 * crash-turn.ts), so the same crash can be compared across executors:
 * `tsx crash-turn-worker.ts <address> <namespace> <taskQueue> <ledger> <slowMs>`.
 */
import { NativeConnection } from '@temporalio/worker';
import { createTurnWorker } from 'durable-turns/worker';
import { crashScript, crashTools } from '../../support/executors/crash-turn';

const [address, namespace, taskQueue, ledger, slowMs] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];

async function main() {
  const connection = await NativeConnection.connect({ address });
  const worker = await createTurnWorker({
    connection,
    namespace,
    taskQueue,
    tools: crashTools({ ledger, slowMs: Number(slowMs) }),
    models: [crashScript()],
  });
  process.stdout.write('WORKER READY\n');
  await worker.run();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

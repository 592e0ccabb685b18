/**
 * A worker process for the crash tests: `tsx crash-worker.ts <address> <namespace> <taskQueue> <ledger>`.
 * Every tool appends `<idempotencyKey> <toolCallId>` to the ledger as it begins its side effect,
 * so the test can count how often each call really ran, across processes.
 */
import { appendFileSync } from 'node:fs';
import { NativeConnection } from '@temporalio/worker';
import { defineTool } from 'durable-turns';
import { createTurnWorker } from 'durable-turns/worker';
import { z } from 'zod';
import {
  crashBackgroundScript,
  crashConversationScript,
  crashQuickScript,
  crashScript,
} from './crash-script';

const [address, namespace, taskQueue, ledger] = process.argv.slice(2) as [string, string, string, string];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const effect = (name: string, retrySafe: boolean, { background = false, quick = false } = {}) =>
  defineTool({
    name,
    description: `${name} (retry-safe: ${retrySafe}, background: ${background}, quick: ${quick})`,
    input: z.object({ ms: z.number() }),
    concurrencySafe: true,
    retrySafe,
    background,
    quick,
    ...(quick ? { timeoutMs: 10_000 } : {}),
    execute: async ({ ms }, ctx) => {
      appendFileSync(ledger, `${ctx.idempotencyKey} ${ctx.toolCallId}\n`);
      const end = Date.now() + ms;
      while (Date.now() < end) {
        ctx.heartbeat();
        await sleep(50);
      }
      return `${ctx.toolCallId} done`;
    },
  });

async function main() {
  const connection = await NativeConnection.connect({ address });
  const worker = await createTurnWorker({
    connection,
    namespace,
    taskQueue,
    tools: [
      effect('safe_effect', true),
      effect('unsafe_effect', false),
      effect('background_safe_effect', true, { background: true }),
      effect('background_unsafe_effect', false, { background: true }),
      effect('quick_safe_effect', true, { quick: true }),
    ],
    models: [crashScript(), crashBackgroundScript(), crashQuickScript(), crashConversationScript()],
    // A killed worker's sticky queue is given up on after 1 s, not 5: the next worker takes the
    // workflows' tasks sooner (what it then does is the same).
    worker: { stickyQueueScheduleToStartTimeout: '1s' },
  });
  process.stdout.write('WORKER READY\n');
  await worker.run();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

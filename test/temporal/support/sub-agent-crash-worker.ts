/**
 * A worker process for the sub-agent crash test:
 * `tsx sub-agent-crash-worker.ts <address> <namespace> <taskQueue> <ledger>`. Prints `WORKER READY`.
 * Its agent tool `researcher` runs a sub-agent (model `crash-sub-agent`) whose one wave calls
 * `until_killed_safe` (retry-safe) and `until_killed_unsafe` (not). Each tool appends
 * `<idempotencyKey> <toolCallId>` to the ledger as it begins; a call's first run then holds until its
 * process is killed, and a run of a key the ledger already has ends at once.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { NativeConnection } from '@temporalio/worker';
import { agentTool, defineTool, type ModelRequest, scriptedModel } from 'durable-turns';
import { createTurnWorker } from 'durable-turns/worker';
import { z } from 'zod';

const [address, namespace, taskQueue, ledger] = process.argv.slice(2) as [string, string, string, string];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ranBefore = (key: string) =>
  readFileSync(ledger, { encoding: 'utf8', flag: 'a+' })
    .split('\n')
    .some((line) => line.split(' ')[0] === key);

const untilKilled = (name: string, retrySafe: boolean) =>
  defineTool({
    name,
    description: `${name}: holds until its worker is killed the first time (retry-safe: ${retrySafe})`,
    input: z.object({}),
    concurrencySafe: true,
    retrySafe,
    execute: async (_args, ctx) => {
      const again = ranBefore(ctx.idempotencyKey);
      appendFileSync(ledger, `${ctx.idempotencyKey} ${ctx.toolCallId}\n`);
      while (!again && !ctx.signal.aborted) {
        ctx.heartbeat();
        await sleep(50);
      }
      if (ctx.signal.aborted) throw ctx.signal.reason;
      return `${ctx.toolCallId} done`;
    },
  });

const isSubAgent = (request: ModelRequest) => request.turnId.includes('/agent/');
const model = scriptedModel(
  [
    (request) =>
      isSubAgent(request)
        ? {
            toolCalls: [
              { id: 'sub_safe', name: 'until_killed_safe', args: {} },
              { id: 'sub_unsafe', name: 'until_killed_unsafe', args: {} },
            ],
          }
        : { toolCalls: [{ id: 'r1', name: 'researcher', args: { task: 'dig' } }] },
    (request) => ({ text: isSubAgent(request) ? 'dug it up' : 'recovered' }),
  ],
  'crash-sub-agent',
);

async function main() {
  const connection = await NativeConnection.connect({ address });
  const worker = await createTurnWorker({
    connection,
    namespace,
    taskQueue,
    tools: [
      agentTool({ name: 'researcher', description: 'Digs', model: model.name }),
      untilKilled('until_killed_safe', true),
      untilKilled('until_killed_unsafe', false),
    ],
    models: [model],
    fleetHealth: false,
    // A killed worker's cached workflows (the parent's and the sub-agent's) wait 1 s, not 5, on its
    // sticky queue before the next worker takes them.
    worker: { stickyQueueScheduleToStartTimeout: '1s' },
  });
  process.stdout.write('WORKER READY\n');
  await worker.run();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

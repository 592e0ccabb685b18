/**
 * A worker process for the MCP session test: `tsx session-worker.ts <address> <namespace> <taskQueue>`.
 * Its `server-everything` (stdio) keeps a session per conversation; its model calls the toggle.
 * Prints `WORKER READY`.
 */
import { NativeConnection } from '@temporalio/worker';
import { mcpTools } from 'durable-turns/mcp';
import { createTurnWorker } from 'durable-turns/worker';
import { everythingOverStdio } from '../../support/mcp-servers';
import { toggleModel, toggleServer } from '../../support/session-toggle';

const [address, namespace, taskQueue] = process.argv.slice(2) as [string, string, string];

async function main() {
  const connection = await NativeConnection.connect({ address });
  const mcp = await mcpTools({ servers: [everythingOverStdio(toggleServer)] });
  const worker = await createTurnWorker({
    connection,
    namespace,
    taskQueue,
    tools: [],
    models: [toggleModel],
    mcp,
    fleetHealth: false,
  });
  process.stdout.write('WORKER READY\n');
  await worker.run();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

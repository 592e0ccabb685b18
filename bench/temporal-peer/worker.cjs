/**
 * The peer's worker (bench/outside-tool-time.ts starts it as a child process): a Temporal worker
 * with the AiSdkPlugin over the scripted provider, the peer's workflow and its tool activities.
 * Connects to TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE, polls BENCH_TASK_QUEUE; prints one JSON
 * "ready" line and runs until SIGTERM.
 *
 *   TEMPORAL_ADDRESS=localhost:7233 BENCH_TASK_QUEUE=peer BENCH_SCRIPTS='{…}' node worker.cjs
 */
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { NativeConnection, Worker } = require('@temporalio/worker');
const { AiSdkPlugin } = require('@temporalio/ai-sdk');
const activities = require('./activities.cjs');
const { scriptedProvider } = require('./scripted-provider.cjs');

async function main() {
  const scripts = JSON.parse(process.env.BENCH_SCRIPTS ?? '');
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS });
  const worker = await Worker.create({
    plugins: [new AiSdkPlugin({ modelProvider: scriptedProvider(scripts) })],
    connection,
    namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue: process.env.BENCH_TASK_QUEUE ?? 'peer',
    workflowsPath: require.resolve('./workflows.cjs'),
    activities,
  });
  process.once('SIGTERM', () => worker.shutdown());
  const running = worker.run();
  while (worker.getState() === 'INITIALIZED') await new Promise((resolve) => setTimeout(resolve, 10));
  const versions = Object.fromEntries(
    ['@temporalio/ai-sdk', '@temporalio/worker', '@temporalio/workflow', 'ai'].map((name) => [
      name,
      JSON.parse(readFileSync(join(__dirname, 'node_modules', name, 'package.json'), 'utf8')).version,
    ]),
  );
  process.stdout.write(`${JSON.stringify({ ready: true, versions })}\n`);
  await running;
  await connection.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

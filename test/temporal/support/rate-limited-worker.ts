/**
 * A worker process for the model rate limit test:
 * `tsx rate-limited-worker.ts <address> <namespace> <taskQueue> <identity> <baseURL> <requestsPerSecond>`.
 * It serves the model `limited` (OpenAI chat-completions at `baseURL`) under a fleet-wide limit of
 * `requestsPerSecond`. Prints `WORKER READY`.
 */
import { NativeConnection } from '@temporalio/worker';
import { createModel } from 'durable-turns';
import { createTurnWorker } from 'durable-turns/worker';

const [address, namespace, taskQueue, identity, baseURL, requestsPerSecond] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
  string,
];

async function main() {
  const connection = await NativeConnection.connect({ address });
  const model = createModel(
    { provider: 'openai-compatible', name: 'limited', model: 'test-model', baseURL, apiKeyEnv: 'LOCAL_KEY' },
    { env: { LOCAL_KEY: 'sk-local-0123456789' } },
  );
  const worker = await createTurnWorker({
    connection,
    namespace,
    taskQueue,
    tools: [],
    models: [model],
    fleetHealth: false,
    modelRateLimits: { limited: { requestsPerSecond: Number(requestsPerSecond) } },
    worker: { identity },
  });
  process.stdout.write('WORKER READY\n');
  await worker.run();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

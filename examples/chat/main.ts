/**
 * The chat example: a `useChat` page over durable conversations. Starts the embedded Temporal dev
 * server (or uses TEMPORAL_ADDRESS), a worker with the example's agent, and the page with its chat
 * route, then prints the page's address. Ask it to "deploy api": the call waits for your approval
 * on the page; reload the page while it answers and it picks the answer up where it is.
 *
 *   npm run example:chat            (PORT=3000 by default)
 */

import { chatConversations, TurnClient } from 'durable-turns/client';
import { chatRoute } from 'durable-turns/ui-stream';
import { createTurnWorker } from 'durable-turns/worker';
import { exampleTemporal } from '../example-temporal';
import { chatModel, chatTools } from './chat-agent';
import { startChatServer } from './chat-server';

const log = (line: string) => process.stdout.write(`${line}\n`);

async function main() {
  const { temporal, native, connection, close } = await exampleTemporal(log);
  const taskQueue = 'durable-turns-chat-example';
  const model = chatModel();
  const worker = await createTurnWorker({
    connection: native,
    namespace: temporal.namespace,
    taskQueue,
    tools: chatTools,
    models: [model],
  });
  const turns = new TurnClient({ connection, namespace: temporal.namespace, taskQueue });
  // No `authorize`: the route serves this machine only (loopback peer and Host).
  const route = chatRoute({ conversations: chatConversations(turns, { turn: { model: model.name } }) });
  const server = await startChatServer({ route, port: Number(process.env.PORT ?? 3000) });
  try {
    await worker.runUntil(async () => {
      log(`\nChat: ${server.url}/   (Ctrl-C to stop)`);
      if (temporal.devServer?.uiUrl) log(`Temporal Web UI: ${temporal.devServer.uiUrl}`);
      await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
    });
  } finally {
    await server.close();
    await close();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});

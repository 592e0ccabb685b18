/**
 * The README's "In code" example, whole: one tool, one model, the same turn in one process (journaled
 * to SQLite, so it resumes after a crash) and on Temporal (the embedded dev server, or TEMPORAL_ADDRESS).
 *
 *   npx tsx examples/in-code.ts
 */
import { readFile } from 'node:fs/promises';
import { Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { defineTool, InProcessExecutor, type ModelRequest, scriptedModel } from 'durable-turns';
import { TurnClient, turnSearchAttributeList } from 'durable-turns/client';
import { ensureTemporal } from 'durable-turns/devserver';
import { SqliteJournal } from 'durable-turns/sqlite';
import { createTurnWorker } from 'durable-turns/worker';
import { z } from 'zod';

const readTool = defineTool({
  name: 'read_file',
  description: 'Reads a UTF-8 text file',
  input: z.object({ path: z.string() }),
  concurrencySafe: true, // reads share a wave…
  resources: ({ path }) => [`file:${path}`], // …unless they touch the same file
  retrySafe: true, // a lost attempt may run again, with the same ctx.idempotencyKey
  retry: { maxAttempts: 3 },
  timeoutMs: 10_000,
  execute: async ({ path }, ctx) => {
    ctx.heartbeat(); // ctx also has: idempotencyKey, attempt, signal (aborted on cancel)
    return readFile(path, 'utf8');
  },
});

// No API key needed: a scripted model. A real one is `aiSdkModel({ name, model: openai('gpt-4.1') })`
// or `createModel(config)` (OpenAI, Anthropic or any OpenAI-compatible server).
const model = scriptedModel(
  [
    { toolCalls: [{ name: 'read_file', args: { path: 'package.json' } }] },
    (request) => ({ text: `package.json has ${toolOutputLength(request)} characters.` }),
  ],
  'example',
);

async function main() {
  Runtime.install({ logger: new DefaultLogger('WARN') }); // the Temporal SDK's own log: warnings and up

  // In one process, journaled to SQLite:
  const executor = new InProcessExecutor({
    tools: [readTool],
    model,
    journal: new SqliteJournal({ path: ':memory:' }),
  });
  const local = await executor.runTurn({ turnId: `local-${Date.now()}`, input: 'How big is package.json?' });
  console.log(`in process: ${local.status}: ${local.text}`);

  // On Temporal: a worker runs the turn workflow and its activities; a client starts and watches turns.
  const temporal = await ensureTemporal({ searchAttributes: turnSearchAttributeList, log: console.log });
  const taskQueue = 'durable-turns-example';
  try {
    const { apiKey, ...options } = temporal.connectionOptions;
    const nativeConnection = await NativeConnection.connect({
      ...options,
      ...(typeof apiKey === 'string' ? { apiKey } : {}),
    });
    const connection = await Connection.connect(temporal.connectionOptions);
    const worker = await createTurnWorker({
      connection: nativeConnection,
      namespace: temporal.namespace,
      taskQueue,
      tools: [readTool],
      models: [model],
    });
    await worker.runUntil(async () => {
      const client = new TurnClient({ connection, namespace: temporal.namespace, taskQueue });
      const turn = await client.start({
        turnId: `temporal-${Date.now()}`,
        input: 'How big is package.json?',
        model: model.name,
      });
      const state = await turn.state(); // phase, current wave, each call, usage, budget left
      console.log(`on Temporal: ${state.phase}…`);
      const result = await turn.result(); // completed | cancelled | budget_exhausted | loop_detected | failed
      console.log(`on Temporal: ${result.status}: ${result.text}`);
      // One output per tool call (ok, error or interrupted), in batch order:
      for (const output of result.outputs) console.log(`  ${output.name} ${output.status}`);
    });
    await connection.close();
    await nativeConnection.close();
  } finally {
    await temporal.stop();
  }
}

/** The scripted model's second answer looks at what the tool returned. */
function toolOutputLength(request: ModelRequest): number {
  const result = request.messages.flatMap((m) => (m.role === 'tool' ? m.content : []))[0];
  return result ? JSON.stringify(result.output.content).length : 0;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

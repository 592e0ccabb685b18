/**
 * The demo: starts the embedded Temporal dev server (or uses TEMPORAL_ADDRESS), runs a worker with
 * the demo agent, runs one turn through the client, and prints what happened.
 *
 *   npm run demo
 */

import type { ToolPostEvent, ToolPreEvent } from 'durable-turns';
import { TurnClient } from 'durable-turns/client';
import { createTurnWorker } from 'durable-turns/worker';
import { demoModel, demoTools } from './demo-agent';
import { exampleTemporal } from './example-temporal';

const log = (line: string) => process.stdout.write(`${line}\n`);

async function main() {
  const { temporal, native, connection, close } = await exampleTemporal(log);
  const taskQueue = 'durable-turns-demo';
  const started = Date.now();
  const at = () => `${String(Date.now() - started).padStart(5)} ms`;
  const worker = await createTurnWorker({
    connection: native,
    namespace: temporal.namespace,
    taskQueue,
    tools: demoTools,
    models: [demoModel],
    observers: [
      {
        onToolPre: (e: ToolPreEvent) =>
          log(`${at()}  ▶ ${e.toolName} ${JSON.stringify(e.args)} (${e.toolCallId}, attempt ${e.attempt})`),
        onToolPost: (e: ToolPostEvent) =>
          log(`${at()}  ■ ${e.toolName} ${e.status} in ${e.durationMs} ms (${e.toolCallId})`),
      },
    ],
  });
  try {
    await worker.runUntil(async () => {
      const client = new TurnClient({ connection, namespace: temporal.namespace, taskQueue });
      const turnId = `demo-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      log(`\nStarting turn ${turnId} (one workflow; each tool call is an activity)\n`);
      const turn = await client.start({
        turnId,
        conversationId: 'demo',
        input: 'Summarize this week’s notes.',
        model: demoModel.name,
      });
      const result = await turn.result();
      log(
        `\nTurn ${result.status} after ${result.modelResponses} model responses and ${result.toolCalls} tool calls.`,
      );
      log('Outputs (recorded in batch order):');
      for (const o of result.outputs)
        log(
          `  ${o.toolCallId.padEnd(14)} ${o.name.padEnd(11)} ${o.status}  ${JSON.stringify(o.content).slice(0, 70)}`,
        );
      log(`\nAnswer:\n${result.text}\n`);
      log(`Usage: ${result.usage.inputTokens} input + ${result.usage.outputTokens} output tokens.`);
      const ui = temporal.devServer?.uiUrl;
      log(
        ui
          ? `Temporal Web UI: ${ui}/namespaces/${temporal.namespace}/workflows/${turnId}`
          : `Temporal server: ${temporal.address}`,
      );
    });
    if (temporal.devServer && process.stdout.isTTY && !process.argv.includes('--exit')) {
      log('The dev server keeps running so you can look around the Web UI; press Ctrl-C to stop it.');
      await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
    }
  } finally {
    await close();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});

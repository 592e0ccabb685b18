import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { InProcessExecutor, type TurnModel } from 'durable-turns';
import { TurnClient } from 'durable-turns/client';
import { dataConverterOption, parseEncryptionKeys } from 'durable-turns/codec';
import { createTurnWorker } from 'durable-turns/worker';
import { uniqueTurnId } from '../conformance/support';
import {
  type AnthropicReply,
  claudeAt,
  extendedThinking,
  startAnthropicServer,
  type TestServer,
} from '../support/models';
import { readFileTool } from '../support/models/wire-test-kit';
import { suiteWorkflowBundle } from '../support/suite-workflow-bundle';
import { TemporalKit } from '../temporal/support/kit';
import { collect } from '../temporal/support/poll';

/**
 * Thinking signatures survive everything a turn on Temporal puts its transcript through —
 * activity results, encryption, continue-as-new, replay — and the turn's requests and transcript
 * are the ones the in-process executor makes for the same conversation.
 */
const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const rounds = 3;
const script: AnthropicReply[] = [
  ...Array.from({ length: rounds }, (_, i) => ({
    kind: 'stream' as const,
    thinking: [`Round ${i}: `, 'read the next file.'],
    signature: `sig-${i}-${'x'.repeat(40)}`,
    ...(i === 1 ? { redactedThinking: `redacted-${i}` } : {}),
    toolUses: [{ id: `toolu_${i}`, name: 'read_file', inputChunks: [`{"path":"f${i}.txt"}`] }],
  })),
  { kind: 'stream', text: ['All read.'] },
];

async function claude(): Promise<{ model: TurnModel; server: TestServer }> {
  const server = await startAnthropicServer(script);
  servers.push(server);
  return { model: claudeAt(server.baseURL, { providerOptions: extendedThinking }), server };
}

test('an encrypted turn that continues as new sends every thinking block back with its signature, with the transcript and requests of the in-process executor, and replays', async () => {
  const keys = parseEncryptionKeys(`k0:${randomBytes(32).toString('base64')}`);
  const taskQueue = kit.taskQueue('reasoning-round-trip');
  const turnId = uniqueTurnId('reasoning-round-trip');
  const onTemporal = await claude();
  const worker = await createTurnWorker({
    connection: kit.native,
    namespace: kit.namespace,
    taskQueue,
    tools: [readFileTool],
    models: [onTemporal.model],
    encryption: keys,
    fleetHealth: false,
  });
  const result = await worker.runUntil(async () => {
    const client = new TurnClient({
      connection: kit.connection,
      namespace: kit.namespace,
      taskQueue,
      encryption: keys,
    });
    const handle = await client.start({
      turnId,
      input: 'Read the files',
      model: 'claude',
      continueAsNewAfterEvents: 20,
    });
    return handle.result();
  });
  expect(result.status).toBe('completed');

  const inProcess = await claude();
  const local = await new InProcessExecutor({ tools: [readFileTool], model: inProcess.model }).runTurn({
    turnId,
    input: 'Read the files',
  });
  expect(result.transcript).toEqual(local.transcript);
  expect(onTemporal.server.requests.map((r) => r.body)).toEqual(inProcess.server.requests.map((r) => r.body));

  // The last request carries every round's thinking, first in its assistant message, signed.
  const last = onTemporal.server.requests.at(-1)?.body as {
    messages: { role: string; content: { type: string; signature?: string; data?: string }[] }[];
  };
  const assistants = last.messages.filter((m) => m.role === 'assistant');
  expect(assistants).toHaveLength(rounds);
  assistants.forEach((message, i) => {
    expect(message.content[0]).toEqual({
      type: 'thinking',
      thinking: `Round ${i}: read the next file.`,
      signature: `sig-${i}-${'x'.repeat(40)}`,
    });
    if (i === 1) expect(message.content[1]).toEqual({ type: 'redacted_thinking', data: 'redacted-1' });
  });

  const plain = new Client({ connection: kit.connection, namespace: kit.namespace });
  const runs = await collect(plain.workflow.list({ query: `WorkflowId = '${turnId}'` }));
  expect(runs.length).toBeGreaterThan(1);
  for (const run of runs)
    await Worker.runReplayHistory(
      { workflowBundle: await suiteWorkflowBundle(), ...dataConverterOption(keys) },
      await plain.workflow.getHandle(turnId, run.runId).fetchHistory(),
      turnId,
    );
});

import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { defineTool, scriptedModel } from 'durable-turns';
import { TurnClient } from 'durable-turns/client';
import { dataConverterOption, keyIdMetadata, parseEncryptionKeys } from 'durable-turns/codec';
import { createTurnWorker } from 'durable-turns/worker';
import { z } from 'zod';
import { CliProcess } from '../cli/support/cli-process';
import { uniqueTurnId } from '../conformance/support';
import { suiteWorkflowBundle } from '../support/suite-workflow-bundle';
import { TemporalKit } from './support/kit';
import { collect, pollFor } from './support/poll';

/**
 * Everything a turn sends through Temporal is encrypted: a client without the key finds none of
 * it in the history or in a query's answer; with the key, the turn works as it always did. Keys
 * rotate without downtime, and a worker without the key holds the turn without harming it.
 */
const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

const marker = 'SECRET-MARKER-7f3a';
const key = () => randomBytes(32).toString('base64');
const [k0, k1] = [key(), key()];
const onlyK0 = parseEncryptionKeys(`k0:${k0}`);
const rotated = parseEncryptionKeys(`k1:${k1},k0:${k0}`);
const onlyK1 = parseEncryptionKeys(`k1:${k1}`);

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a customer up',
  input: z.object({ customer: z.string() }),
  concurrencySafe: true,
  execute: ({ customer }) => ({ customer, card: `4111 ${marker} output` }),
});
const refund = defineTool({
  name: 'refund',
  description: 'Refunds (a person approves)',
  input: z.object({ customer: z.string() }),
  requiresApproval: true,
  execute: ({ customer }) => `refunded ${customer}`,
});

function model(name: string) {
  return scriptedModel(
    [
      {
        text: `Looking up ${marker} in text`,
        toolCalls: [{ id: 'l1', name: 'lookup', args: { customer: `${marker} in args` } }],
      },
      {
        text: 'Refunding.',
        toolCalls: [{ id: 'r1', name: 'refund', args: { customer: `${marker} refund` } }],
      },
      { text: `Done for ${marker}.` },
    ],
    name,
  );
}

function worker(taskQueue: string, keys: ReturnType<typeof parseEncryptionKeys>) {
  return createTurnWorker({
    connection: kit.native,
    namespace: kit.namespace,
    taskQueue,
    tools: [lookup, refund],
    models: [model('secret')],
    encryption: keys,
  });
}

const client = (taskQueue: string, keys: ReturnType<typeof parseEncryptionKeys>) =>
  new TurnClient({ connection: kit.connection, namespace: kit.namespace, taskQueue, encryption: keys });

/** A client with no codec: what anyone with access to the namespace (or its database) reads. */
const plain = () => new Client({ connection: kit.connection, namespace: kit.namespace });

async function rawHistory(turnId: string) {
  return plain().workflow.getHandle(turnId).fetchHistory();
}

const bytesOf = (history: temporal.api.history.v1.IHistory) =>
  Buffer.from(temporal.api.history.v1.History.encode(history).finish());

/** The key ids of every encrypted payload in the history (wherever it sits in an event). */
function keyIdsIn(history: temporal.api.history.v1.IHistory): Set<string> {
  const ids = new Set<string>();
  const visit = (value: unknown): void => {
    if (!value || typeof value !== 'object') return;
    if (value instanceof Uint8Array) return;
    const metadata = (value as { metadata?: Record<string, Uint8Array> }).metadata;
    const id = metadata?.[keyIdMetadata];
    if (id) ids.add(Buffer.from(id).toString('utf8'));
    for (const child of Object.values(value)) visit(child);
  };
  visit(history);
  return ids;
}

async function waitForApproval(handle: Awaited<ReturnType<TurnClient['start']>>) {
  await pollFor('the refund to wait for approval', async () =>
    (await handle.state()).phase === 'awaiting-approval' ? true : undefined,
  );
}

test('a client without the key finds no input, argument, output, text, reason or query answer in the clear; with it, the turn, watch and state work', async () => {
  const taskQueue = kit.taskQueue('encrypted');
  const w = await worker(taskQueue, onlyK0);
  await w.runUntil(async () => {
    const turns = client(taskQueue, onlyK0);
    const turnId = uniqueTurnId('encrypted');
    const handle = await turns.start({
      turnId,
      input: `Refund the customer ${marker} in input`,
      model: 'secret',
    });
    await waitForApproval(handle);
    // A query's answer as the server hands it over: the state names the call and its arguments.
    const raw = await kit.connection.workflowService.queryWorkflow({
      namespace: kit.namespace,
      execution: { workflowId: turnId },
      query: { queryType: 'state' },
    });
    const answer = Buffer.from(temporal.api.common.v1.Payloads.encode(raw.queryResult ?? {}).finish());
    expect(answer.includes(marker)).toBe(false);
    expect(
      keyIdsIn({ events: [{ workflowExecutionCompletedEventAttributes: { result: raw.queryResult } }] }),
    ).toEqual(new Set(['k0']));
    // With the key, the state reads as always.
    expect((await handle.state()).calls).toEqual([
      expect.objectContaining({
        toolCallId: 'r1',
        approval: expect.objectContaining({ input: { customer: `${marker} refund` } }),
      }),
    ]);
    await handle.approve('r1', `approved for ${marker}`);
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(result.text).toBe(`Done for ${marker}.`);
    const entries = await collect(handle.watch({ live: false }));
    expect(entries.map((e) => (e.kind === 'entry' ? e.entry.type : e.kind))).toContain('tool.completed');

    const history = await rawHistory(turnId);
    // What the check covers: calls handed over by Update while the model streamed, an approval
    // Update with its reason, activity inputs and results, the user metadata of each event.
    const kinds = (history.events ?? []).flatMap((e) =>
      Object.keys(e).filter((k) => k.endsWith('Attributes')),
    );
    expect(kinds).toEqual(
      expect.arrayContaining([
        'workflowExecutionUpdateAcceptedEventAttributes',
        'activityTaskScheduledEventAttributes',
        'activityTaskCompletedEventAttributes',
        'workflowExecutionCompletedEventAttributes',
      ]),
    );
    expect((history.events ?? []).some((e) => e.userMetadata?.summary)).toBe(true);
    expect(bytesOf(history).includes(marker)).toBe(false);
    expect(keyIdsIn(history)).toEqual(new Set(['k0']));
    // Without the key, the result cannot be read at all: it is not there to read.
    await expect(plain().workflow.getHandle(turnId).result()).rejects.toThrow();
  });
});

test('the check can fail: without keys, the same turn leaves the marker in the history in the clear', async () => {
  const taskQueue = kit.taskQueue('clear');
  const w = await createTurnWorker({
    connection: kit.native,
    namespace: kit.namespace,
    taskQueue,
    tools: [lookup, refund],
    models: [model('secret')],
    encryption: false,
  });
  await w.runUntil(async () => {
    const turns = new TurnClient({
      connection: kit.connection,
      namespace: kit.namespace,
      taskQueue,
      encryption: false,
    });
    const turnId = uniqueTurnId('clear');
    const handle = await turns.start({ turnId, input: `Refund ${marker}`, model: 'secret' });
    await waitForApproval(handle);
    await handle.approve('r1');
    await handle.result();
    const history = await rawHistory(turnId);
    expect(bytesOf(history).includes(marker)).toBe(true);
    expect(keyIdsIn(history)).toEqual(new Set());
  });
});

test('key rotation: a turn begun under k0 finishes on workers that encrypt with k1 and still read k0', async () => {
  const taskQueue = kit.taskQueue('rotation');
  const turnId = uniqueTurnId('rotation');
  const before = await worker(taskQueue, onlyK0);
  const handle = await before.runUntil(async () => {
    const h = await client(taskQueue, onlyK0).start({ turnId, input: 'refund', model: 'secret' });
    await waitForApproval(h);
    return h;
  });
  const after = await worker(taskQueue, rotated);
  await after.runUntil(async () => {
    const turn = client(taskQueue, rotated).attach(handle.turnId);
    await turn.approve('r1');
    expect((await turn.result()).status).toBe('completed');
  });
  // What was written before the switch is under k0, what came after under k1.
  expect(keyIdsIn(await rawHistory(turnId))).toEqual(new Set(['k0', 'k1']));
});

test('a worker without the key fails only its workflow task, naming the key it lacks; a worker with the key finishes the turn', async () => {
  const taskQueue = kit.taskQueue('no-key');
  const turnId = uniqueTurnId('no-key');
  const keyless = await worker(taskQueue, onlyK1);
  await keyless.runUntil(async () => {
    await client(taskQueue, onlyK0).start({ turnId, input: 'refund', model: 'secret' });
    const failed = await pollFor('the keyless worker to fail a workflow task', async () => {
      const events = (await rawHistory(turnId)).events ?? [];
      return events.find((e) => e.workflowTaskFailedEventAttributes)?.workflowTaskFailedEventAttributes;
    });
    // Said in the clear: the operator who must add the key reads which one without it.
    expect(failed?.failure?.message).toMatch(/encrypted with key k0, which this process does not hold/);
  });
  const keyed = await worker(taskQueue, onlyK0);
  await keyed.runUntil(async () => {
    const turn = client(taskQueue, onlyK0).attach(turnId);
    await waitForApproval(turn);
    await turn.approve('r1');
    expect((await turn.result()).status).toBe('completed');
  });
});

test('a tool attempt taken by a worker without the key never ran: the call is run again, on a worker with the key, once, without using up its one attempt', async () => {
  const taskQueue = kit.taskQueue('activity-no-key');
  const turnId = uniqueTurnId('activity-no-key');
  const ran: string[] = [];
  let open = false;
  /** Not retry-safe, one attempt: holds (heartbeating) until the test lets both go. */
  const charge = defineTool({
    name: 'charge',
    description: 'Charges a card once',
    input: z.object({ id: z.string() }),
    concurrencySafe: true,
    execute: async ({ id }, ctx) => {
      ran.push(id);
      while (!open && !ctx.signal.aborted) {
        ctx.heartbeat();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return `charged ${id}`;
    },
  });
  const twoCharges = scriptedModel(
    [
      {
        toolCalls: [
          { id: 'c1', name: 'charge', args: { id: 'c1' } },
          { id: 'c2', name: 'charge', args: { id: 'c2' } },
        ],
      },
      { text: 'Charged both.' },
    ],
    'charges',
  );
  const keyed = await createTurnWorker({
    connection: kit.native,
    namespace: kit.namespace,
    taskQueue,
    tools: [charge],
    models: [twoCharges],
    encryption: onlyK0,
    fleetHealth: false,
    // One activity slot: it holds one charge, so the other waits for a worker with a free slot.
    worker: { maxConcurrentActivityTaskExecutions: 1 },
  });
  await keyed.runUntil(async () => {
    const turn = await client(taskQueue, onlyK0).start({ turnId, input: 'charge twice', model: 'charges' });
    await pollFor('one charge running on the keyed worker', async () =>
      ran.length === 1 ? true : undefined,
    );
    // A worker process without k0 joins the queue: the waiting charge goes to it, which cannot read it.
    const keyless = new CliProcess({
      args: ['worker', '--agent', path.join(__dirname, '../agents/operator-agent.ts'), '--json'],
      env: { DURABLE_TURNS_TASK_QUEUE: taskQueue, DURABLE_TURNS_ENCRYPTION_KEYS: `k1:${k1}` },
    });
    let notStarted: { detail: string } | undefined;
    try {
      await keyless.waitFor({ pattern: /"worker":"ready"/, what: 'the keyless worker was ready' });
      notStarted = await pollFor('an attempt the keyless worker could not read', async () => {
        for await (const event of turn.watch({ live: false }))
          if (event.kind === 'entry' && event.entry.type === 'tool.attempt_not_started') return event.entry;
        return undefined;
      });
    } finally {
      await keyless.stop();
    }
    expect(notStarted?.detail).toMatch(/encrypted with key k0, which this process does not hold/);
    open = true;
    const result = await turn.result();
    expect(result.status).toBe('completed');
    expect(result.outputs.map((o) => [o.toolCallId, o.status, o.attempts])).toEqual([
      ['c1', 'ok', 1],
      ['c2', 'ok', 1],
    ]);
    // Each charge ran once, both on the keyed worker.
    expect([...ran].sort()).toEqual(['c1', 'c2']);
  });
});

test('continue-as-new carries the turn encrypted, and every run of it replays with the codec', async () => {
  const taskQueue = kit.taskQueue('encrypted-can');
  const turnId = uniqueTurnId('encrypted-can');
  const steps = 8;
  const chatty = scriptedModel(
    [
      ...Array.from({ length: steps }, (_, i) => ({
        text: `step ${i} ${marker}`,
        toolCalls: [{ id: `l${i}`, name: 'lookup', args: { customer: `${marker} ${i}` } }],
      })),
      { text: `All done ${marker}.` },
    ],
    'chatty',
  );
  const w = await createTurnWorker({
    connection: kit.native,
    namespace: kit.namespace,
    taskQueue,
    tools: [lookup],
    models: [chatty],
    encryption: onlyK0,
    fleetHealth: false,
  });
  await w.runUntil(async () => {
    const handle = await client(taskQueue, onlyK0).start({
      turnId,
      input: `go ${marker}`,
      model: 'chatty',
      continueAsNewAfterEvents: 30,
    });
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(result.outputs).toHaveLength(steps);
    expect(result.transcript.at(-1)).toMatchObject({ role: 'assistant' });
  });
  const runs = await collect(plain().workflow.list({ query: `WorkflowId = '${turnId}'` }));
  expect(runs.length).toBeGreaterThan(1);
  for (const run of runs) {
    const history = await plain().workflow.getHandle(turnId, run.runId).fetchHistory();
    expect(bytesOf(history).includes(marker)).toBe(false);
    await Worker.runReplayHistory(
      { workflowBundle: await suiteWorkflowBundle(), ...dataConverterOption(onlyK0) },
      history,
      turnId,
    );
  }
});

import {
  defineTool,
  InProcessExecutor,
  scriptedModel,
  type TurnObserver,
  type TurnResult,
  transcriptProblems,
} from 'durable-turns';
import type { TurnClient } from 'durable-turns/client';
import { createTurnWorker } from 'durable-turns/worker';
import { z } from 'zod';
import { sleep, uniqueTurnId } from '../conformance/support';
import { TemporalKit } from './support/kit';

const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

/** The same lookup, quick or not. */
const lookup = (quick: boolean) =>
  defineTool({
    name: quick ? 'lookup_quick' : 'lookup_plain',
    description: 'Looks a key up',
    input: z.object({ key: z.string() }),
    concurrencySafe: true,
    retrySafe: true,
    quick,
    timeoutMs: 1_000,
    execute: ({ key }) => `value of ${key}`,
  });

let flakyRuns = 0;
const flaky = defineTool({
  name: 'flaky_quick',
  description: 'Fails its first attempt',
  input: z.object({}),
  retrySafe: true,
  quick: true,
  timeoutMs: 5_000,
  retry: { maxAttempts: 2, initialDelayMs: 10 },
  execute: (_args, ctx) => {
    flakyRuns += 1;
    if (ctx.attempt === 1) throw new Error('transient');
    return 'second time lucky';
  },
});

const aborted: string[] = [];
const started: string[] = [];
const waits = defineTool({
  name: 'waits_quick',
  description: 'Waits until aborted, or for its timeout',
  input: z.object({}),
  retrySafe: true,
  quick: true,
  timeoutMs: 10_000,
  execute: async (_args, ctx) => {
    started.push(ctx.toolCallId);
    while (!ctx.signal.aborted) await sleep(10);
    aborted.push(ctx.toolCallId);
    throw new Error('aborted');
  },
});

const hangs = defineTool({
  name: 'hangs_quick',
  description: 'Takes longer than its timeout',
  input: z.object({}),
  retrySafe: true,
  quick: true,
  timeoutMs: 300,
  execute: () => sleep(5_000).then(() => 'too late'),
});

/** Not concurrency-safe: each call of it is a wave of its own, run after the one before it. */
const step = defineTool({
  name: 'step_quick',
  description: 'Counts',
  input: z.object({ n: z.number() }),
  retrySafe: true,
  quick: true,
  timeoutMs: 5_000,
  execute: ({ n }) => `step ${n}`,
});

const tools = [lookup(true), lookup(false), flaky, waits, hangs, step];
const attempts: string[] = [];
const observer: TurnObserver = {
  onToolPost: ({ toolCallId, attempt, result }) => attempts.push(`${toolCallId}#${attempt}:${result.status}`),
};

const model = scriptedModel(
  [
    (request) => {
      const quick = JSON.stringify(request.messages[0]).includes('quick');
      const name = quick ? 'lookup_quick' : 'lookup_plain';
      return {
        toolCalls: [
          { id: 'a', name, args: { key: 'a' } },
          { id: 'b', name, args: { key: 'b' } },
        ],
      };
    },
    { toolCalls: [{ id: 'f', name: 'flaky_quick', args: {} }] },
    { toolCalls: [{ id: 'h', name: 'hangs_quick', args: {} }] },
    { text: 'done' },
  ],
  'quick-script',
);

const steps = (ids: string[]) => ids.map((id, n) => ({ id, name: 'step_quick', args: { n } }));
/** Quick calls one after another, the failing one among them retried by the engine after a backoff. */
const sequence = () =>
  scriptedModel(
    [
      {
        toolCalls: [
          ...steps(['s0', 's1', 's2']),
          { id: 'f', name: 'flaky_quick', args: {} },
          ...steps(['s4', 's5']),
        ],
      },
      { text: 'done' },
    ],
    'sequence',
  );
const cancelledInChain = () =>
  scriptedModel(
    [
      {
        toolCalls: [
          ...steps(['s0', 's1']),
          { id: 'w', name: 'waits_quick', args: {} },
          ...steps(['s3', 's4']),
        ],
      },
    ],
    'cancelled-in-chain',
  );

async function withWorker<T>(run: (client: TurnClient) => Promise<T>): Promise<T> {
  const taskQueue = kit.taskQueue('quick');
  const worker = await createTurnWorker({
    connection: kit.native,
    namespace: kit.namespace,
    taskQueue,
    tools,
    models: [
      model,
      scriptedModel([{ toolCalls: [{ id: 'w', name: 'waits_quick', args: {} }] }, { text: 'x' }], 'waits'),
      sequence(),
      cancelledInChain(),
    ],
    observers: [observer],
  });
  return worker.runUntil(() => run(kit.client(taskQueue)));
}

/** The transcript as both kinds of tools must give it, tool names aside. */
const shape = (result: TurnResult) =>
  JSON.stringify(result.events.slice(1))
    .replaceAll('lookup_quick', 'lookup')
    .replaceAll('lookup_plain', 'lookup')
    .replaceAll(',"quick":true', '');

test('a quick tool runs as a local activity (no activity task of its own), with the same transcript, retries, timeouts and observers as any tool', async () => {
  await withWorker(async (client) => {
    const quickTurn = await client.start({
      turnId: uniqueTurnId('quick'),
      input: 'quick please',
      model: 'quick-script',
    });
    const quick = await quickTurn.result();
    const plainTurn = await client.start({
      turnId: uniqueTurnId('plain'),
      input: 'plain please',
      model: 'quick-script',
    });
    const plain = await plainTurn.result();

    expect(quick.status).toBe('completed');
    expect(shape(quick)).toEqual(shape(plain));
    expect(quick.outputs.map((o) => [o.toolCallId, o.status, o.attempts])).toEqual([
      ['a', 'ok', 1],
      ['b', 'ok', 1],
      // Retried by the engine's decision, as a second local activity.
      ['f', 'ok', 2],
      // The tool's own timeout, enforced the same way.
      ['h', 'error', 1],
    ]);
    expect(quick.outputs[3]?.errorType).toBe('timeout');

    // The quick turn's tool calls left markers, not activity tasks; the plain one's are activities.
    const scheduled = async (turnId: string) => {
      const history = await client.client.workflow.getHandle(turnId).fetchHistory();
      const events = history.events ?? [];
      return {
        activities: events.filter(
          (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool',
        ).length,
        localActivities: events.filter(
          (e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity',
        ).length,
      };
    };
    // a, b, f twice and h: local activities in the quick turn, activity tasks in the plain one.
    expect(await scheduled(quickTurn.turnId)).toEqual({ activities: 0, localActivities: 5 });
    expect(await scheduled(plainTurn.turnId)).toEqual({ activities: 2, localActivities: 3 });
  });
  // Observers saw every attempt, the failed one too.
  expect(attempts.filter((a) => a.startsWith('f#'))).toEqual(['f#1:error', 'f#2:ok', 'f#1:error', 'f#2:ok']);
  expect(flakyRuns).toBe(4);
}, 120_000);

test('cancelling a turn aborts a quick call that is running (once the worker renews the workflow task it holds); it reports interrupted', async () => {
  await withWorker(async (client) => {
    const turn = await client.start({ turnId: uniqueTurnId('quick-cancel'), input: 'wait', model: 'waits' });
    // Not by query: a running quick call holds the workflow task, so a query would wait for it.
    while (started.length === 0) await sleep(20);
    await turn.cancel();
    const result = await turn.result();
    expect(result.status).toBe('cancelled');
    expect(result.outputs).toMatchObject([{ toolCallId: 'w', status: 'interrupted' }]);
    expect(aborted).toEqual(['w']);
  });
}, 60_000);

/** How many local activities the turn ran (one marker each). */
async function localActivities(client: TurnClient, turnId: string): Promise<number> {
  const history = await client.client.workflow.getHandle(turnId).fetchHistory();
  return (history.events ?? []).filter(
    (e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity',
  ).length;
}

test('quick calls that must run one after another run back to back in fewer local activities than calls, with the transcript of one local activity per call and of the in-process executor', async () => {
  await withWorker(async (client) => {
    attempts.length = 0;
    const chainedTurn = await client.start({
      turnId: uniqueTurnId('chained'),
      input: 'go',
      model: 'sequence',
    });
    const chained = await chainedTurn.result();
    const chainedAttempts = [...attempts];
    const oneByOneTurn = await client.start({
      turnId: uniqueTurnId('one-by-one'),
      input: 'go',
      model: 'sequence',
      dispatch: { chainQuickCalls: false },
    });
    const oneByOne = await oneByOneTurn.result();

    expect(chained.status).toBe('completed');
    expect(chained.outputs.map((o) => [o.toolCallId, o.status, o.attempts])).toEqual([
      ['s0', 'ok', 1],
      ['s1', 'ok', 1],
      ['s2', 'ok', 1],
      // Its first attempt failed with a retry due later: the chain stopped there, the engine waited.
      ['f', 'ok', 2],
      ['s4', 'ok', 1],
      ['s5', 'ok', 1],
    ]);
    // Every attempt ran once, in order, with its observers.
    expect(chainedAttempts).toEqual([
      's0#1:ok',
      's1#1:ok',
      's2#1:ok',
      'f#1:error',
      'f#2:ok',
      's4#1:ok',
      's5#1:ok',
    ]);
    expect(JSON.stringify(chained.events.slice(1))).toEqual(JSON.stringify(oneByOne.events.slice(1)));
    // One local activity per attempt without chains; with them fewer (a chain stops at the retry's
    // wait, and after its window of a second: how many exactly depends on the machine's speed).
    expect(await localActivities(client, oneByOneTurn.turnId)).toBe(7);
    expect(await localActivities(client, chainedTurn.turnId)).toBeLessThan(7);

    const inProcess = await new InProcessExecutor({ tools, model: sequence() }).runTurn({
      turnId: 'in-process',
      input: 'go',
    });
    const outputs = (result: TurnResult) => result.outputs.map((o) => [o.toolCallId, o.status, o.content]);
    expect(outputs(inProcess)).toEqual(outputs(chained));
  });
}, 120_000);

test('cancelling a turn in the middle of a chain records the calls that finished as finished, the running one as interrupted, and the rest as never started', async () => {
  await withWorker(async (client) => {
    attempts.length = 0;
    started.length = 0;
    aborted.length = 0;
    const turn = await client.start({
      turnId: uniqueTurnId('chain-cancel'),
      input: 'go',
      model: 'cancelled-in-chain',
    });
    // Not by query: a running quick call holds the workflow task, so a query would wait for it.
    while (started.length === 0) await sleep(20);
    await turn.cancel();
    const result = await turn.result();
    expect(result.status).toBe('cancelled');
    expect(result.outputs.map((o) => [o.toolCallId, o.status, o.attempts])).toEqual([
      ['s0', 'ok', 1],
      ['s1', 'ok', 1],
      ['w', 'interrupted', 1],
      ['s3', 'interrupted', 0],
      ['s4', 'interrupted', 0],
    ]);
    expect(aborted).toEqual(['w']);
    expect(attempts).toEqual(['s0#1:ok', 's1#1:ok', 'w#1:interrupted']);
    expect(transcriptProblems(result.transcript)).toEqual([]);
  });
}, 60_000);

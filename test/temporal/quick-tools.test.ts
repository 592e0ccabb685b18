import { defineTool, scriptedModel, type TurnObserver, type TurnResult } from 'durable-turns';
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

const tools = [lookup(true), lookup(false), flaky, waits, hangs];
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

async function withWorker<T>(run: (client: ReturnType<TemporalKit['client']>) => Promise<T>): Promise<T> {
  const taskQueue = kit.taskQueue('quick');
  const worker = await createTurnWorker({
    connection: kit.native,
    namespace: kit.namespace,
    taskQueue,
    tools,
    models: [
      model,
      scriptedModel([{ toolCalls: [{ id: 'w', name: 'waits_quick', args: {} }] }, { text: 'x' }], 'waits'),
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

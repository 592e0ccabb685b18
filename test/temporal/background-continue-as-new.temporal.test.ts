import { defineTool, scriptedModel } from 'durable-turns';
import { z } from 'zod';
import { sleep, uniqueTurnId } from '../conformance/support';
import { TemporalKit } from './support/kit';
import { collect } from './support/poll';

const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

let released = false;
const build = defineTool({
  name: 'build',
  description: 'Runs in the background until the test releases it',
  input: z.object({}),
  concurrencySafe: true,
  background: true,
  timeoutMs: 120_000,
  execute: async (_args, ctx) => {
    while (!released) {
      ctx.heartbeat();
      await sleep(25);
    }
    return 'built';
  },
});
const noop = defineTool({
  name: 'noop',
  description: 'Does nothing',
  input: z.object({ n: z.number() }),
  concurrencySafe: true,
  execute: ({ n }) => `ok ${n}`,
});

test('continue-as-new waits for a running background call (the turn goes on meanwhile), then happens once it is delivered', async () => {
  const taskQueue = kit.taskQueue('bg-can');
  const responses = 6;
  const model = scriptedModel([
    { toolCalls: [{ id: 'b', name: 'build', args: {} }] },
    ...Array.from({ length: responses }, (_, r) => ({
      toolCalls: [{ id: `n${r}`, name: 'noop', args: { n: r } }],
    })),
    { text: 'waiting for the build' },
    { text: 'done' },
  ]);
  const worker = await kit.worker({ taskQueue, tools: [build, noop], model });
  await worker.runUntil(async () => {
    const client = kit.client(taskQueue);
    const turnId = uniqueTurnId('bg-can');
    const turn = await client.start({
      turnId,
      input: 'build, and do other things meanwhile',
      model: 'scripted',
      // Due after 30 events; with a background call running it waits, up to 5 × that.
      continueAsNewAfterEvents: 30,
    });
    const runs = () => collect(client.client.workflow.list({ query: `WorkflowId = '${turnId}'` }));
    // The model is done and the turn waits for the build: well past 30 events, in its first run.
    for (;;) {
      const state = await turn.state();
      if (state.spent.modelResponses === responses + 2) break;
      await sleep(100);
    }
    const during = await client.client.workflow.getHandle(turnId).describe();
    expect(during.historyLength).toBeGreaterThan(30);
    expect((await runs()).length).toBe(1);
    released = true;
    const result = await turn.result();
    expect(result.status).toBe('completed');
    expect(result.text).toBe('done');
    expect(result.outputs.map((o) => [o.toolCallId, o.content])).toEqual([
      ['b', 'built'],
      ...Array.from({ length: responses }, (_, r) => [`n${r}`, `ok ${r}`]),
    ]);
    // Once nothing ran in the background, the turn continued as new before asking the model again.
    const all = await runs();
    expect(all.length).toBe(2);
    expect(all.filter((r) => r.status.name === 'CONTINUED_AS_NEW')).toHaveLength(1);
  });
}, 120_000);

import { defineTool, scriptedModel } from 'durable-turns';
import { z } from 'zod';
import { sleep, uniqueTurnId } from '../conformance/support';
import { TemporalKit } from './support/kit';

const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

let executions = 0;
const wait = defineTool({
  name: 'wait',
  description: 'Waits a while',
  input: z.object({ ms: z.number() }),
  execute: async ({ ms }) => {
    executions += 1;
    await sleep(ms);
    return 'waited';
  },
});

describe('the turn id is the fence', () => {
  test('a second start of a running turn attaches to it instead of running it twice', async () => {
    const taskQueue = kit.taskQueue('fence-attach');
    const model = scriptedModel([
      { toolCalls: [{ id: 'w', name: 'wait', args: { ms: 1_500 } }] },
      { text: 'done' },
    ]);
    const worker = await kit.worker({ taskQueue, tools: [wait], model });
    await worker.runUntil(async () => {
      const client = kit.client(taskQueue);
      const turnId = uniqueTurnId('attach');
      const before = executions;
      const first = await client.start({ turnId, input: 'go', model: 'scripted' });
      const second = await client.start({ turnId, input: 'go', model: 'scripted' });
      await expect(
        client.start({ turnId, input: 'go', model: 'scripted', ifRunning: 'fail' }),
      ).rejects.toThrow(/already exists/);
      const [a, b] = await Promise.all([first.result(), second.result()]);
      expect(a).toEqual(b);
      expect(executions - before).toBe(1);
      const runs = await collect(client.client.workflow.list({ query: `WorkflowId = '${turnId}'` }));
      expect(runs).toHaveLength(1);
    });
  });

  test('two clients racing to start the same turn get exactly one workflow run', async () => {
    const taskQueue = kit.taskQueue('fence-race');
    const model = scriptedModel([
      { toolCalls: [{ id: 'w', name: 'wait', args: { ms: 200 } }] },
      { text: 'done' },
    ]);
    const worker = await kit.worker({ taskQueue, tools: [wait], model });
    await worker.runUntil(async () => {
      const turnId = uniqueTurnId('race');
      const before = executions;
      const clients = [kit.client(taskQueue), kit.client(taskQueue), kit.client(taskQueue)];
      const handles = await Promise.all(
        clients.map((c) => c.start({ turnId, input: 'go', model: 'scripted' })),
      );
      const results = await Promise.all(handles.map((h) => h.result()));
      expect(new Set(results.map((r) => JSON.stringify(r))).size).toBe(1);
      expect(executions - before).toBe(1);
      const runs = await collect(clients[0]!.client.workflow.list({ query: `WorkflowId = '${turnId}'` }));
      expect(runs).toHaveLength(1);
    });
  });

  test('a finished turn id is not run again by accident, and attach reads its result', async () => {
    const taskQueue = kit.taskQueue('fence-finished');
    const model = scriptedModel([{ text: 'once' }]);
    const worker = await kit.worker({ taskQueue, tools: [wait], model });
    await worker.runUntil(async () => {
      const client = kit.client(taskQueue);
      const turnId = uniqueTurnId('finished');
      const first = await (await client.start({ turnId, input: 'go', model: 'scripted' })).result();
      await expect(client.start({ turnId, input: 'again', model: 'scripted' })).rejects.toThrow(
        /already ran.*attach/,
      );
      expect(await client.attach(turnId).result()).toEqual(first);
    });
  });
});

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

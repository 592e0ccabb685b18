import { msToTs } from '@temporalio/common/lib/time';
import { TurnClient } from 'durable-turns/client';
import { createTurnWorker } from 'durable-turns/worker';
import { turnSearchAttributeList } from '../../contract/search-attributes';
import { scriptedModel } from '../../models';
import { TemporalKit } from './support/kit';
import { pollFor } from './support/poll';

/**
 * A turn's upserts name the turn search attributes; on a namespace without them every workflow
 * task of the turn would fail. The worker makes sure of them before it polls.
 */
const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

async function registeredOn(namespace: string): Promise<string[]> {
  const { customAttributes } = await kit.connection.operatorService.listSearchAttributes({ namespace });
  return Object.keys(customAttributes ?? {});
}

test('a worker on a namespace without the turn search attributes registers them before it polls, and its turns list with model, calls and tokens', async () => {
  const namespace = `attrs-${process.pid}-${Date.now()}`;
  await kit.connection.workflowService.registerNamespace({
    namespace,
    workflowExecutionRetentionPeriod: msToTs('1 day'),
  });
  // A namespace is usable on every frontend a moment after it is registered.
  await pollFor('the new namespace to be described', async () =>
    kit.connection.workflowService.describeNamespace({ namespace }).then(
      () => true,
      () => undefined,
    ),
  );
  const names = turnSearchAttributeList.map((spec) => spec.name);
  expect(await registeredOn(namespace)).not.toEqual(expect.arrayContaining(names));

  const lines: string[] = [];
  const taskQueue = kit.taskQueue('attrs');
  const worker = await createTurnWorker({
    connection: kit.native,
    namespace,
    taskQueue,
    tools: [],
    models: [scriptedModel([{ text: 'hello', usage: { inputTokens: 3, outputTokens: 4 } }])],
    log: (line) => lines.push(line),
  });
  expect(await registeredOn(namespace)).toEqual(expect.arrayContaining(names));
  expect(lines.join('\n')).toMatch(/Registered search attributes on namespace attrs-/);

  await worker.runUntil(async () => {
    const client = new TurnClient({ connection: kit.connection, namespace, taskQueue });
    const turn = await client.start({ turnId: `attrs-turn-${Date.now()}`, input: 'hi', model: 'scripted' });
    expect((await turn.result()).status).toBe('completed');
    const listed = await pollFor('the list to show the finished turn', async () => {
      const turns = await client.list({ status: 'completed' });
      return turns.find((t) => t.turnId === turn.turnId);
    });
    expect(listed).toMatchObject({ model: 'scripted', toolCalls: 0, tokens: 7 });
  });
});

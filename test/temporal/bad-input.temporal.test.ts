import { WorkflowNotFoundError } from '@temporalio/client';
import { defineTool, scriptedModel } from 'durable-turns';
import type { StartTurnArgs } from 'durable-turns/client';
import { createTurnWorker } from 'durable-turns/worker';
import { z } from 'zod';
import { turnWorkflowType } from '../../contract/turn-workflow';
import { uniqueTurnId } from '../conformance/support';
import { TemporalKit } from './support/kit';
import { collect, pollFor } from './support/poll';

const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

const echo = defineTool({
  name: 'echo',
  description: 'Echoes its text',
  input: z.object({ text: z.string() }),
  execute: ({ text }) => `echo: ${text}`,
});

describe('bad input is refused explicitly', () => {
  test('a turn asking for a model the worker does not have fails with a reason naming that model and the models the worker has', async () => {
    const taskQueue = kit.taskQueue('unknown-model');
    const worker = await createTurnWorker({
      connection: kit.native,
      namespace: kit.namespace,
      taskQueue,
      tools: [echo],
      models: [scriptedModel([{ text: 'a' }], 'alpha'), scriptedModel([{ text: 'b' }], 'beta')],
    });
    await worker.runUntil(async () => {
      const turn = await kit
        .client(taskQueue)
        .start({ turnId: uniqueTurnId('unknown-model'), input: 'hello', model: 'gpt-nonexistent' });
      const started = Date.now();
      const result = await turn.result();
      expect(result.status).toBe('failed');
      expect(result.reason).toMatch(/gpt-nonexistent/);
      expect(result.reason).toMatch(/alpha/);
      expect(result.reason).toMatch(/beta/);
      expect(result.outputs).toEqual([]);
      expect(result.events.at(-1)).toMatchObject({ type: 'turn.finished', status: 'failed' });
      // Not retried for minutes as if it were a transient provider error.
      expect(Date.now() - started).toBeLessThan(20_000);
    });
  });

  test('invalid turn input, a zero budget or an empty turn id is refused by start with a message naming the field, and no workflow is started', async () => {
    const taskQueue = kit.taskQueue('invalid-start');
    const client = kit.client(taskQueue);
    const base = { input: 'hello', model: 'scripted' } as const;
    const cases: { name: string; args: StartTurnArgs; field: RegExp }[] = [
      { name: 'empty input text', args: { ...base, turnId: uniqueTurnId('bad'), input: '' }, field: /input/ },
      {
        name: 'empty message list',
        args: { ...base, turnId: uniqueTurnId('bad'), input: [] },
        field: /input/,
      },
      {
        name: 'zero tool-call budget',
        args: { ...base, turnId: uniqueTurnId('bad'), budget: { maxToolCalls: 0 } },
        field: /budget\.maxToolCalls/,
      },
      {
        name: 'zero model-response budget',
        args: { ...base, turnId: uniqueTurnId('bad'), budget: { maxModelResponses: 0 } },
        field: /budget\.maxModelResponses/,
      },
      {
        name: 'zero concurrency',
        args: { ...base, turnId: uniqueTurnId('bad'), dispatch: { maxConcurrency: 0 } },
        field: /dispatch\.maxConcurrency/,
      },
      { name: 'empty turn id', args: { ...base, turnId: '' }, field: /turnId/ },
    ];
    for (const c of cases) {
      await expect(client.start(c.args)).rejects.toThrow(c.field);
      await expect(client.start(c.args)).rejects.toThrow(/invalid turn/);
      if (c.args.turnId) {
        await expect(client.client.workflow.getHandle(c.args.turnId).describe()).rejects.toBeInstanceOf(
          WorkflowNotFoundError,
        );
      }
    }

    // No turn reached this task queue: once a valid turn shows up in visibility, it is the only one
    // (the worker's fleet health workflow runs on the queue too: the list names the turn type).
    const model = scriptedModel([{ text: 'fine' }]);
    const worker = await kit.worker({ taskQueue, tools: [echo], model });
    await worker.runUntil(async () => {
      const good = await client.start({ ...base, turnId: uniqueTurnId('good') });
      expect((await good.result()).status).toBe('completed');
      const listed = await pollFor('the valid turn in visibility', async () => {
        const runs = await collect(
          client.client.workflow.list({
            query: `TaskQueue = '${taskQueue}' AND WorkflowType = '${turnWorkflowType}'`,
          }),
        );
        return runs.some((r) => r.workflowId === good.turnId) ? runs : undefined;
      });
      expect(listed.map((r) => r.workflowId)).toEqual([good.turnId]);
    });
  });
});

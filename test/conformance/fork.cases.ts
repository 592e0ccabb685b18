import { defineTool, scriptedModel, type ToolMessage } from 'durable-turns';
import { z } from 'zod';
import { pollFor } from '../temporal/support/poll';
import { type ConformanceHarness, runSpec, type TurnSpec } from './harness';
import { uniqueTurnId } from './support';

/** A tool that notes, itself, every time it really runs and with which idempotency key. */
function countingTool() {
  const runs: { n: number; key: string }[] = [];
  const tool = defineTool({
    name: 'count',
    description: 'Counts',
    input: z.object({ n: z.number().int() }),
    concurrencySafe: true,
    execute: ({ n }, { idempotencyKey }) => {
      runs.push({ n, key: idempotencyKey });
      return `counted ${n}`;
    },
  });
  return { tool, runs };
}

const count = (n: number) => ({ name: 'count', args: { n } });

export function forkCases(harness: ConformanceHarness): void {
  describe(`fork (${harness.name})`, () => {
    test('a fork after response 2 of a 5-response turn runs no tool and repeats no request before the fork point; its own call gets a key of its own', async () => {
      const { tool, runs } = countingTool();
      // Responses 0–3 each call the tool; response 4 answers. Steps are by response index, so the
      // fork (whose first request is response 3) reads the same script from there.
      const model = scriptedModel([
        { toolCalls: [count(0)] },
        { toolCalls: [count(1)] },
        { toolCalls: [count(2)] },
        { toolCalls: [count(3)] },
        { text: 'counted to three' },
      ]);
      const source: TurnSpec = { turnId: uniqueTurnId('fork-src'), input: 'count', tools: [tool], model };
      const original = await runSpec(harness, source);
      expect(runs.map((r) => r.n)).toEqual([0, 1, 2, 3]);
      runs.length = 0;

      const forkId = uniqueTurnId('fork');
      const forked = await runSpec(harness, {
        ...source,
        turnId: forkId,
        fork: { from: source.turnId, at: { afterResponse: 2 } },
      });
      // Counted by the tool itself: only the call after the fork point ran, under the fork's key.
      expect(runs).toEqual([{ n: 3, key: expect.stringContaining(forkId) }]);
      expect(model.requests.filter((r) => r.turnId === forkId).map((r) => r.responseIndex)).toEqual([3, 4]);
      expect(forked.status).toBe('completed');
      // The record before the point and the same script after it: the same transcript.
      expect(forked.transcript).toEqual(original.transcript);
      expect(forked.outputs.map((o) => o.content)).toEqual([
        'counted 0',
        'counted 1',
        'counted 2',
        'counted 3',
      ]);
      expect(forked.modelResponses).toBe(2);
    });

    test('a source still running is refused, not waited for', async () => {
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let entered = false;
      const hold = defineTool({
        name: 'hold',
        description: 'Holds',
        input: z.object({}),
        execute: async () => {
          entered = true;
          await released;
          return 'held';
        },
      });
      const model = scriptedModel([{ toolCalls: [{ name: 'hold', args: {} }] }, { text: 'done' }]);
      const source: TurnSpec = { turnId: uniqueTurnId('fork-running'), input: 'hold', tools: [hold], model };
      const running = await harness.start(source);
      await pollFor('the source to run its call', async () => (entered ? true : undefined));
      const refused = await harness
        .start({
          ...source,
          turnId: uniqueTurnId('fork-of-running'),
          fork: { from: source.turnId, at: { afterResponse: 0 } },
        })
        .then((turn) => turn.result)
        .then(
          () => 'forked',
          (error: unknown) => (error instanceof Error ? error.message : String(error)),
        );
      expect(refused).toMatch(/cannot fork turn .*(still running|has not finished)/);
      release();
      expect((await running.result).status).toBe('completed');
    });

    test('a fork before a call keeps the outputs of the calls before it, runs it and those after, and may edit a recorded output and add a message', async () => {
      const { tool, runs } = countingTool();
      const model = scriptedModel([
        { toolCalls: [count(0)] },
        { toolCalls: [count(1), count(2), count(3)] },
        { text: 'done' },
      ]);
      const source: TurnSpec = { turnId: uniqueTurnId('fork-src'), input: 'count', tools: [tool], model };
      await runSpec(harness, source);
      runs.length = 0;

      const forkId = uniqueTurnId('fork-call');
      const forked = await runSpec(harness, {
        ...source,
        turnId: forkId,
        fork: {
          from: source.turnId,
          at: { beforeCall: 'call_1_2' },
          outputs: { call_0_1: { status: 'ok', content: 'counted zero (edited)', attempts: 1 } },
          message: 'and then stop',
        },
      });
      expect(runs.map((r) => r.n).sort()).toEqual([2, 3]);
      expect(forked.outputs.map((o) => o.content)).toEqual([
        'counted zero (edited)',
        'counted 1',
        'counted 2',
        'counted 3',
      ]);
      // The model's next request reads the edited output and, after the batch, the message.
      const next = model.requests.find((r) => r.turnId === forkId && r.responseIndex === 2);
      const tools = next?.messages.filter((m): m is ToolMessage => m.role === 'tool') ?? [];
      expect(tools[0]?.content[0]?.output.content).toBe('counted zero (edited)');
      expect(next?.messages.at(-1)).toEqual({ role: 'user', content: 'and then stop' });

      await expect(
        runSpec(harness, {
          ...source,
          turnId: uniqueTurnId('fork-bad'),
          fork: { from: source.turnId, at: { afterResponse: 7 } },
        }),
      ).rejects.toThrow(/the turn has no response 7 to fork after/);
    });

    test('a fork after the final answer, with a message, asks the model again', async () => {
      const model = scriptedModel([{ text: 'first answer' }, { text: 'second answer' }]);
      const source: TurnSpec = { turnId: uniqueTurnId('fork-src'), input: 'hello', tools: [], model };
      await runSpec(harness, source);
      const forked = await runSpec(harness, {
        ...source,
        turnId: uniqueTurnId('fork-final'),
        fork: { from: source.turnId, at: { afterResponse: 0 }, message: 'say more' },
      });
      expect(forked.text).toBe('second answer');
      expect(forked.transcript.map((m) => m.role)).toEqual(['assistant', 'user', 'assistant']);
    });
  });
}

import { defineTool, scriptedModel, transcriptProblems } from 'durable-turns';
import { z } from 'zod';
import { toolCallKey } from '../../core';
import { type ConformanceHarness, runSpec } from './harness';
import { sleep, uniqueTurnId } from './support';

/** A tool that keeps going for `finishMs` after it sees the cancel, and records that its effect happened. */
function cancelTools() {
  const effects: string[] = [];
  const started: string[] = [];
  const finisher = defineTool({
    name: 'finisher',
    description: 'Finishes its effect even when cancelled (a commit already under way)',
    input: z.object({ finishMs: z.number() }),
    concurrencySafe: true,
    execute: async ({ finishMs }, ctx) => {
      started.push(ctx.toolCallId);
      while (!ctx.signal.aborted) {
        ctx.heartbeat();
        await sleep(20);
      }
      await sleep(finishMs);
      effects.push(ctx.toolCallId);
      return 'committed';
    },
  });
  const stopper = defineTool({
    name: 'stopper',
    description: 'Stops as soon as it is cancelled, with no effect',
    input: z.object({}),
    concurrencySafe: true,
    execute: async (_args, ctx) => {
      started.push(ctx.toolCallId);
      while (!ctx.signal.aborted) {
        ctx.heartbeat();
        await sleep(20);
      }
      throw new Error('stopped by the cancel');
    },
  });
  return { finisher, stopper, effects, started };
}

const echo = defineTool({
  name: 'echo',
  description: 'Echoes its text',
  input: z.object({ text: z.string() }),
  concurrencySafe: true,
  execute: ({ text }) => `echo ${text.length}`,
});

/** Cases where the promise of one true output per call is easiest to break. */
export function edgeCases(harness: ConformanceHarness): void {
  describe(`truthful outcomes at the edges (${harness.name})`, () => {
    test('a call that finishes its effect after the cancel is recorded as done; one that stops is interrupted', async () => {
      const { finisher, stopper, effects, started } = cancelTools();
      const turn = await harness.start({
        turnId: uniqueTurnId('cancel-truth'),
        input: 'go',
        tools: [finisher, stopper],
        model: scriptedModel([
          {
            toolCalls: [
              { id: 'f', name: 'finisher', args: { finishMs: 200 } },
              { id: 's', name: 'stopper', args: {} },
            ],
          },
          { text: 'never asked' },
        ]),
      });
      const deadline = Date.now() + 20_000;
      while (started.length < 2 && Date.now() < deadline) await sleep(20);
      await turn.cancel();
      const result = await turn.result;
      expect(result.status).toBe('cancelled');
      expect(effects).toEqual(['f']);
      expect(result.outputs.map((o) => [o.toolCallId, o.status, o.content])).toEqual([
        ['f', 'ok', 'committed'],
        ['s', 'interrupted', 'interrupted: cancelled while running; the tool stopped'],
      ]);
      expect(transcriptProblems(result.transcript)).toEqual([]);
    });

    test('a transient model failure is tried again by the engine, and the turn goes on', async () => {
      const result = await (
        await harness.start({
          turnId: uniqueTurnId('model-retry'),
          input: 'go',
          tools: [echo],
          modelRetry: { maxAttempts: 3, initialDelayMs: 20 },
          model: scriptedModel([
            { failFirst: 2, toolCalls: [{ id: 'e', name: 'echo', args: { text: 'hi' } }] },
            { text: 'done' },
          ]),
        })
      ).result;
      expect(result.status).toBe('completed');
      expect(result.outputs.map((o) => [o.toolCallId, o.status])).toEqual([['e', 'ok']]);
    });

    test('when model retries run out the turn fails, naming the last answer and the attempts', async () => {
      const result = await (
        await harness.start({
          turnId: uniqueTurnId('model-retry-out'),
          input: 'go',
          tools: [echo],
          modelRetry: { maxAttempts: 2, initialDelayMs: 20 },
          model: scriptedModel([{ failFirst: 5, text: 'never' }]),
        })
      ).result;
      expect(result.status).toBe('failed');
      expect(result.reason).toMatch(
        /^model request 0 failed after 2 attempts: scripted transient failure 2 of 5/,
      );
    });

    test('a model request that never answers ends at the turn’s model timeout, is tried again, then fails naming it', async () => {
      const result = await runSpec(harness, {
        turnId: uniqueTurnId('model-hang'),
        input: 'go',
        tools: [echo],
        timeouts: { modelMs: 500 },
        modelRetry: { maxAttempts: 2, initialDelayMs: 20 },
        model: scriptedModel([{ parts: [{ type: 'text-delta', delta: 'never', delayMs: 600_000 }] }]),
      });
      expect(result.status).toBe('failed');
      expect(result.reason).toMatch(/^model request 0 failed after 2 attempts: .*time(d out|out)/i);
    });

    test('arguments over maxArgumentBytes give that call an error output, keep them out of the transcript, and the turn goes on', async () => {
      const big = 'x'.repeat(1024 * 1024);
      const result = await (
        await harness.start({
          turnId: uniqueTurnId('big-args'),
          input: 'go',
          tools: [echo],
          limits: { maxArgumentBytes: 64 * 1024 },
          model: scriptedModel([
            {
              toolCalls: [
                { id: 'big', name: 'echo', args: { text: big } },
                { id: 'small', name: 'echo', args: { text: 'hi' } },
              ],
            },
            { text: 'done' },
          ]),
        })
      ).result;
      expect(result.status).toBe('completed');
      expect(result.outputs.map((o) => [o.toolCallId, o.status, o.errorType])).toEqual([
        ['big', 'error', 'arguments-too-large'],
        ['small', 'ok', undefined],
      ]);
      expect(result.outputs[0]?.content).toMatch(/are \d{7} bytes, over this turn's limit of 65536 bytes/);
      expect(JSON.stringify(result.transcript).length).toBeLessThan(10_000);
      expect(transcriptProblems(result.transcript)).toEqual([]);
    });

    test('a call with 1 MiB of arguments under a raised limit runs, and the turn completes', async () => {
      const big = 'y'.repeat(1024 * 1024);
      const result = await (
        await harness.start({
          turnId: uniqueTurnId('big-args-ok'),
          input: 'go',
          tools: [echo],
          limits: { maxArgumentBytes: 2 * 1024 * 1024 },
          model: scriptedModel([
            { toolCalls: [{ id: 'big', name: 'echo', args: { text: big } }] },
            { text: 'done' },
          ]),
        })
      ).result;
      expect(result.status).toBe('completed');
      expect(result.outputs.map((o) => [o.toolCallId, o.status, o.content])).toEqual([
        ['big', 'ok', `echo ${big.length}`],
      ]);
    });

    test('a tool whose promise never settles ends at the turn’s default tool timeout, and the turn goes on', async () => {
      const hang = defineTool({
        name: 'hang',
        description: 'Never settles and ignores its signal',
        input: z.object({}),
        execute: () => new Promise<string>(() => {}),
      });
      const result = await (
        await harness.start({
          turnId: uniqueTurnId('hang'),
          input: 'go',
          tools: [hang],
          timeouts: { toolMs: 300 },
          model: scriptedModel([{ toolCalls: [{ id: 'h', name: 'hang', args: {} }] }, { text: 'done' }]),
        })
      ).result;
      expect(result.status).toBe('completed');
      expect(result.outputs.map((o) => [o.status, o.errorType, o.content])).toEqual([
        ['error', 'timeout', 'hang timed out after 300 ms'],
      ]);
    });

    test('ids with / and % give every call an idempotency key of its own', async () => {
      const keys: string[] = [];
      const keyed = defineTool({
        name: 'keyed',
        description: 'Records its idempotency key',
        input: z.object({}),
        concurrencySafe: true,
        execute: (_args, ctx) => {
          keys.push(ctx.idempotencyKey);
          return 'ok';
        },
      });
      const turnId = `${uniqueTurnId('keys')}/p`;
      const result = await (
        await harness.start({
          turnId,
          input: 'go',
          tools: [keyed],
          model: scriptedModel([
            {
              toolCalls: [
                { id: 'q', name: 'keyed', args: {} },
                { id: 'p/q', name: 'keyed', args: {} },
                { id: 'model/0', name: 'keyed', args: {} },
              ],
            },
            { text: 'done' },
          ]),
        })
      ).result;
      expect(result.status).toBe('completed');
      expect(keys.sort()).toEqual(
        ['q', 'p/q', 'model/0'].map((toolCallId) => toolCallKey({ revision: 2, turnId, toolCallId })).sort(),
      );
      expect(new Set(keys).size).toBe(3);
    });

    test('a tool that throws a value nothing can describe gets an error output, and the turn goes on', async () => {
      const hostile = defineTool({
        name: 'hostile',
        description: 'Throws an object without a prototype',
        input: z.object({}),
        execute: () => {
          throw Object.create(null);
        },
      });
      const result = await runSpec(harness, {
        turnId: uniqueTurnId('hostile'),
        input: 'go',
        tools: [hostile, echo],
        model: scriptedModel([
          {
            toolCalls: [
              { id: 'h', name: 'hostile', args: {} },
              { id: 'e', name: 'echo', args: { text: 'after' } },
            ],
          },
          { text: 'done' },
        ]),
      });
      expect(result.status).toBe('completed');
      expect(result.outputs.map((o) => [o.toolCallId, o.status])).toEqual([
        ['h', 'error'],
        ['e', 'ok'],
      ]);
      expect(result.outputs[0]?.content).toMatch(/cannot be described/);
    });

    test('a finished call’s signal never fires when the turn is cancelled later', async () => {
      const finishedSignals: AbortSignal[] = [];
      const { stopper, started } = cancelTools();
      const quick = defineTool({
        name: 'quick',
        description: 'Finishes at once and keeps its signal',
        input: z.object({}),
        execute: async (_args, ctx) => {
          finishedSignals.push(ctx.signal);
          return 'done';
        },
      });
      const turn = await harness.start({
        turnId: uniqueTurnId('signal-per-attempt'),
        input: 'go',
        tools: [quick, stopper],
        model: scriptedModel([
          { toolCalls: [{ id: 'q', name: 'quick', args: {} }] },
          { toolCalls: [{ id: 's', name: 'stopper', args: {} }] },
          { text: 'never asked' },
        ]),
      });
      const deadline = Date.now() + 20_000;
      while (!started.includes('s') && Date.now() < deadline) await sleep(20);
      await turn.cancel();
      expect((await turn.result).status).toBe('cancelled');
      expect(finishedSignals).toHaveLength(1);
      expect(finishedSignals[0]?.aborted).toBe(false);
    });

    test('a blank turn id is refused with a message naming the rule', async () => {
      await expect(
        runSpec(harness, {
          turnId: '   ',
          input: 'go',
          tools: [echo],
          model: scriptedModel([{ text: 'never' }]),
        }),
      ).rejects.toThrow(/turn id " {3}" is not valid: use 1 to 256 characters/);
    });
  });
}

import { defineTool, scriptedModel, transcriptProblems } from 'durable-turns';
import { z } from 'zod';
import type { ConformanceHarness } from './harness';
import { sleep, uniqueTurnId } from './support';

function slowTools() {
  const aborted: string[] = [];
  const started: string[] = [];
  const quick = defineTool({
    name: 'quick',
    description: 'Returns at once',
    input: z.object({}),
    // A wave of its own, so its result is recorded before the slow calls start: a cancel that
    // comes once they run finds it completed, on every executor, however loaded the machine.
    concurrencySafe: false,
    execute: () => 'quick done',
  });
  const slow = defineTool({
    name: 'slow',
    description: 'Runs until cancelled',
    input: z.object({ ms: z.number() }),
    concurrencySafe: true,
    execute: async ({ ms }, ctx) => {
      started.push(ctx.toolCallId);
      ctx.signal.addEventListener('abort', () => aborted.push(ctx.toolCallId), { once: true });
      const end = Date.now() + ms;
      while (Date.now() < end) {
        if (ctx.signal.aborted) throw new Error('aborted');
        ctx.heartbeat();
        await sleep(20);
      }
      return 'slow done';
    },
  });
  return { quick, slow, aborted, started };
}

export function cancellationCases(harness: ConformanceHarness): void {
  describe(`cancellation (${harness.name})`, () => {
    test('cancelling aborts running calls, interrupts every open call, keeps completed results, and leaves a valid transcript', async () => {
      const { quick, slow, aborted, started } = slowTools();
      const turn = await harness.start({
        turnId: uniqueTurnId('cancel'),
        input: 'go',
        tools: [quick, slow],
        model: scriptedModel([
          {
            toolCalls: [
              { id: 'q', name: 'quick', args: {} },
              { id: 's1', name: 'slow', args: { ms: 30_000 } },
              { id: 's2', name: 'slow', args: { ms: 30_000 } },
            ],
          },
          { text: 'never asked' },
        ]),
      });
      const deadline = Date.now() + 20_000;
      while (started.length < 2 && Date.now() < deadline) await sleep(25);
      await turn.cancel('operator stopped it');
      const result = await turn.result;
      expect(result.status).toBe('cancelled');
      expect(result.outputs.map((o) => [o.toolCallId, o.status])).toEqual([
        ['q', 'ok'],
        ['s1', 'interrupted'],
        ['s2', 'interrupted'],
      ]);
      expect(result.outputs[1]?.content).toMatch(/cancel|operator stopped it/);
      expect(aborted.sort()).toEqual(['s1', 's2']);
      expect(transcriptProblems(result.transcript)).toEqual([]);
    });

    test('in sequential mode a cancel between calls leaves the rest of the batch unstarted, each with an interrupted output', async () => {
      const { slow, started } = slowTools();
      const turn = await harness.start({
        turnId: uniqueTurnId('cancel-seq'),
        input: 'go',
        tools: [slow],
        dispatch: { mode: 'sequential' },
        model: scriptedModel([
          {
            toolCalls: [1, 2, 3, 4].map((n) => ({
              id: `s${n}`,
              name: 'slow',
              args: { ms: n === 1 ? 50 : 30_000 },
            })),
          },
        ]),
      });
      const deadline = Date.now() + 20_000;
      while (started.length < 2 && Date.now() < deadline) await sleep(25);
      await turn.cancel();
      const result = await turn.result;
      expect(result.status).toBe('cancelled');
      expect(started).toEqual(['s1', 's2']);
      expect(result.outputs.map((o) => [o.toolCallId, o.status, o.attempts])).toEqual([
        ['s1', 'ok', 1],
        ['s2', 'interrupted', 1],
        ['s3', 'interrupted', 0],
        ['s4', 'interrupted', 0],
      ]);
      expect(transcriptProblems(result.transcript)).toEqual([]);
    });

    test('a call waiting to be tried again at the cancel is interrupted, not an error, and says how its last attempt failed', async () => {
      const attempts: number[] = [];
      const flaky = defineTool({
        name: 'flaky',
        description: 'Fails, and would be tried again a minute later',
        input: z.object({}),
        retry: { maxAttempts: 3, initialDelayMs: 60_000 },
        execute: (_args, ctx) => {
          attempts.push(ctx.attempt);
          throw new Error(`transient failure on attempt ${ctx.attempt}`);
        },
      });
      const turn = await harness.start({
        turnId: uniqueTurnId('cancel-retry-wait'),
        input: 'go',
        tools: [flaky],
        model: scriptedModel([
          { toolCalls: [{ id: 'f', name: 'flaky', args: {} }] },
          { text: 'never asked' },
        ]),
      });
      const deadline = Date.now() + 20_000;
      while (attempts.length < 1 && Date.now() < deadline) await sleep(25);
      // Whether the engine has recorded the failure yet (the call waits) or not (it still runs, and
      // fails after the cancel), the call did not finish: the output is the same.
      await turn.cancel('operator stopped it');
      const result = await turn.result;
      expect(result.status).toBe('cancelled');
      expect(attempts).toEqual([1]);
      expect(result.outputs).toEqual([
        expect.objectContaining({
          toolCallId: 'f',
          status: 'interrupted',
          attempts: 1,
          errorType: 'cancelled',
        }),
      ]);
      expect(result.outputs[0]?.content).toMatch(
        /^not completed: .*(cancel|operator stopped it).*; its last attempt \(1\) failed: .*transient failure on attempt 1$/,
      );
      expect(transcriptProblems(result.transcript)).toEqual([]);
    });
  });
}

import { defineTool, scriptedModel, transcriptProblems } from 'durable-turns';
import { z } from 'zod';
import { type ConformanceHarness, runSpec } from './harness';
import { sleep, uniqueTurnId } from './support';

const work = defineTool({
  name: 'work',
  description: 'Does a unit of work',
  input: z.object({ n: z.number(), ms: z.number().default(10) }),
  concurrencySafe: true,
  execute: async ({ n, ms }) => {
    await sleep(ms);
    return `did ${n}`;
  },
});
const calls = (count: number, ms = 10, from = 0) =>
  Array.from({ length: count }, (_, i) => ({ id: `w${from + i}`, name: 'work', args: { n: from + i, ms } }));

export function budgetCases(harness: ConformanceHarness): void {
  describe(`budgets (${harness.name})`, () => {
    test('the model-response budget is checked before each request', async () => {
      const result = await runSpec(harness, {
        turnId: uniqueTurnId('budget-responses'),
        input: 'go',
        tools: [work],
        budget: { maxModelResponses: 2 },
        model: scriptedModel([{ toolCalls: calls(1) }, { toolCalls: calls(1, 10, 1) }]),
      });
      expect(result.status).toBe('budget_exhausted');
      expect(result.reason).toMatch(/model response budget of 2/);
      expect(result.modelResponses).toBe(2);
      expect(result.outputs.map((o) => o.status)).toEqual(['ok', 'ok']);
      expect(transcriptProblems(result.transcript)).toEqual([]);
    });

    test('the tool-call budget stops a sequential batch mid-way; the rest get interrupted outputs', async () => {
      const result = await runSpec(harness, {
        turnId: uniqueTurnId('budget-calls-seq'),
        input: 'go',
        tools: [work],
        dispatch: { mode: 'sequential' },
        budget: { maxToolCalls: 2 },
        model: scriptedModel([{ toolCalls: calls(5) }]),
      });
      expect(result.status).toBe('budget_exhausted');
      expect(result.outputs.map((o) => o.status)).toEqual([
        'ok',
        'ok',
        'interrupted',
        'interrupted',
        'interrupted',
      ]);
      expect(result.outputs[2]?.content).toMatch(/tool call budget of 2/);
      expect(transcriptProblems(result.transcript)).toEqual([]);
    });

    test('the tool-call budget lets no call past the limit start in parallel mode either', async () => {
      const result = await runSpec(harness, {
        turnId: uniqueTurnId('budget-calls-par'),
        input: 'go',
        tools: [work],
        budget: { maxToolCalls: 3 },
        model: scriptedModel([{ toolCalls: calls(5) }]),
      });
      expect(result.status).toBe('budget_exhausted');
      expect(result.toolCalls).toBe(3);
      expect(result.outputs.map((o) => o.status)).toEqual(['ok', 'ok', 'ok', 'interrupted', 'interrupted']);
    });

    test('running out of tokens ends the turn before the next request', async () => {
      const result = await runSpec(harness, {
        turnId: uniqueTurnId('budget-tokens'),
        input: 'go',
        tools: [work],
        budget: { maxTokens: 100 },
        model: scriptedModel([
          { toolCalls: calls(1), usage: { inputTokens: 60, outputTokens: 50 } },
          { text: 'unreachable' },
        ]),
      });
      expect(result.status).toBe('budget_exhausted');
      expect(result.reason).toMatch(/token budget of 100/);
      expect(result.usage).toEqual({ inputTokens: 60, outputTokens: 50 });
    });

    test('wall time is checked after each tool completion: in parallel mode the next wave does not start', async () => {
      const barrier = defineTool({
        name: 'barrier',
        description: 'unsafe',
        input: z.object({}),
        execute: () => 'b',
      });
      // The first wave must start within the budget and end after it: its tools run longer than the
      // whole budget, so it is spent when they finish however late they started. How long a turn
      // takes to hand out its first activities is the machine's, not ours (a loaded Temporal can
      // take seconds): a run whose first wave did not start in time says nothing of the check, so
      // the case is run again with a budget well past the start that run measured.
      let firstStarted: number | undefined;
      const long = defineTool({
        name: 'long',
        description: 'Runs past the budget',
        input: z.object({ ms: z.number() }),
        concurrencySafe: true,
        execute: async ({ ms }) => {
          firstStarted ??= Date.now();
          await sleep(ms);
          return 'long done';
        },
      });
      let maxWallTimeMs = 2_000;
      for (let run = 1; ; run++) {
        firstStarted = undefined;
        const began = Date.now();
        const result = await runSpec(harness, {
          turnId: uniqueTurnId('budget-wall'),
          input: 'go',
          tools: [work, long, barrier],
          budget: { maxWallTimeMs },
          model: scriptedModel([
            {
              toolCalls: [
                { id: 'l0', name: 'long', args: { ms: maxWallTimeMs + 100 } },
                { id: 'l1', name: 'long', args: { ms: maxWallTimeMs + 100 } },
                { id: 'b', name: 'barrier', args: {} },
                ...calls(1, 10, 2),
              ],
            },
          ]),
        });
        expect(result.status).toBe('budget_exhausted');
        const startedAfter = (firstStarted ?? Date.now()) - began;
        const firstWaveOk = result.outputs.slice(0, 2).every((o) => o.status === 'ok');
        if (!firstWaveOk && startedAfter >= maxWallTimeMs / 2 && run < 3) {
          maxWallTimeMs = 4 * startedAfter;
          continue;
        }
        expect(result.outputs.map((o) => [o.toolCallId, o.status])).toEqual([
          ['l0', 'ok'],
          ['l1', 'ok'],
          ['b', 'interrupted'],
          ['w2', 'interrupted'],
        ]);
        return;
      }
    });
  });
}

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
      // The budget only has to outlast the turn's start (a loaded Temporal can take a second or two
      // to hand out the first activities); the first wave's tools then run longer than the whole
      // budget, so it is spent when they finish however late they started.
      const maxWallTimeMs = 3_000;
      const result = await runSpec(harness, {
        turnId: uniqueTurnId('budget-wall'),
        input: 'go',
        tools: [work, barrier],
        budget: { maxWallTimeMs },
        model: scriptedModel([
          {
            toolCalls: [
              ...calls(2, maxWallTimeMs + 100),
              { id: 'b', name: 'barrier', args: {} },
              ...calls(1, 10, 2),
            ],
          },
        ]),
      });
      expect(result.status).toBe('budget_exhausted');
      expect(result.outputs.map((o) => [o.toolCallId, o.status])).toEqual([
        ['w0', 'ok'],
        ['w1', 'ok'],
        ['b', 'interrupted'],
        ['w2', 'interrupted'],
      ]);
    });
  });
}

import {
  type CompactionConfigInput,
  defineTool,
  type Message,
  ModelError,
  type ModelRequest,
  type ScriptedModelOptions,
  type ScriptedStep,
  scriptedModel,
  transcriptProblems,
} from 'durable-turns';
import { z } from 'zod';
import { summaryMessage } from '../../core';
import { type ConformanceHarness, runSpec } from './harness';
import { uniqueTurnId } from './support';

const work = defineTool({
  name: 'work',
  description: 'Does a unit of work',
  input: z.object({ n: z.number() }),
  concurrencySafe: true,
  execute: ({ n }) => `did ${n}`,
});
const call = (n: number) => ({ toolCalls: [{ id: `w${n}`, name: 'work', args: { n } }] });
const big = { inputTokens: 900, outputTokens: 200 };
const user = (content: string): Message => ({ role: 'user', content });
const isSummary = (request: ModelRequest) => request.purpose === 'compaction';
const turnRequests = (requests: ModelRequest[]) => requests.filter((r) => !isSummary(r));

export function compactionCases(harness: ConformanceHarness): void {
  const run = (
    label: string,
    steps: ScriptedStep[],
    { summarize, compaction = {} }: ScriptedModelOptions & { compaction?: CompactionConfigInput } = {},
  ) => {
    const model = scriptedModel(steps, 'scripted', summarize ? { summarize } : {});
    const result = runSpec(harness, {
      turnId: uniqueTurnId(label),
      input: 'go',
      tools: [work],
      model,
      compaction,
      modelRetry: { initialDelayMs: 1 },
    });
    return { model, result };
  };

  describe(`compaction (${harness.name})`, () => {
    test('once the context reaches its configured size, what came before the message being answered is summarised, and later requests send the summary in its place', async () => {
      const { model, result: running } = run(
        'compact-budget',
        [call(0), { ...call(1), usage: big }, { text: 'done' }],
        {
          summarize: () => ({ text: 'they did 0', usage: { inputTokens: 40, outputTokens: 5 } }),
          compaction: { maxContextTokens: 1_000 },
        },
      );
      const result = await running;
      expect(result.status).toBe('completed');
      const input = user('go');
      const [a0, t0, a1, t1] = result.transcript;
      // The summary request: everything before the answered message (response 1), then the instruction; no tools.
      const summaryRequest = model.requests.find(isSummary);
      expect(summaryRequest?.tools).toEqual([]);
      // …as plain text: it goes with no tools, and providers refuse calls in a request that defines none.
      expect(summaryRequest?.messages.slice(0, -1)).toEqual([
        input,
        { role: 'assistant', content: [{ type: 'text', text: '[called work with {"n":0}]' }] },
        user('[work (w0) ok: did 0]'),
      ]);
      expect(a0).toMatchObject({ role: 'assistant' });
      expect(t0).toMatchObject({ role: 'tool' });
      expect(summaryRequest?.messages.at(-1)).toMatchObject({
        role: 'user',
        content: expect.stringContaining('summary'),
      });
      // Response 2's request: the summary, the turn's input, then response 1 with its output, as they were.
      expect(turnRequests(model.requests)[2]?.messages).toEqual([
        summaryMessage('they did 0'),
        input,
        a1,
        t1,
      ]);
      // The transcript is whole: compaction changes what requests send, not what happened.
      expect(result.transcript).toHaveLength(5);
      expect(transcriptProblems(result.transcript)).toEqual([]);
      expect(result.events.filter((e) => e.type === 'context.compacted')).toEqual([
        {
          type: 'context.compacted',
          through: 3,
          summary: 'they did 0',
          usage: { inputTokens: 40, outputTokens: 5 },
        },
      ]);
      expect(result.usage).toEqual({ inputTokens: 940, outputTokens: 205 });
    });

    test("a request the provider refuses as too long is compacted and asked again; one that has nothing to compact fails the turn with the provider's words", async () => {
      const tooLong = (request: ModelRequest) => {
        if (request.messages[0] !== undefined && typeof request.messages[0].content === 'string')
          if (!request.messages[0].content.startsWith('Summary'))
            throw new ModelError('prompt is too long: 210000 tokens > 200000 maximum', false, undefined, {
              kind: 'context-overflow',
            });
        return { text: 'fits now' };
      };
      const { model, result: running } = run('compact-overflow', [call(0), call(1), tooLong]);
      const result = await running;
      expect(result.status).toBe('completed');
      expect(result.text).toBe('fits now');
      expect(model.requests.map((r) => (isSummary(r) ? 'summary' : r.responseIndex))).toEqual([
        0,
        1,
        2,
        'summary',
        2,
      ]);

      const failed = await run('compact-nothing', [tooLong]).result;
      expect(failed.status).toBe('failed');
      expect(failed.reason).toBe(
        'the context is too long for the model, and compacting it failed: the context is too long, and there is nothing before the message being answered to summarise',
      );
    });

    test('what is to be summarised that is itself too long for the model is summarised in parts, older half first, and the turn goes on', async () => {
      const tooLong = new ModelError('prompt is too long', false, undefined, { kind: 'context-overflow' });
      const { model, result: running } = run(
        'compact-in-parts',
        [call(0), call(1), { ...call(2), usage: big }, { text: 'done' }],
        {
          // The model takes a summary request of at most three messages and the instruction.
          summarize: (request) =>
            request.messages.length > 4
              ? { failWith: tooLong }
              : {
                  text: `summary of ${request.messages.length - 1}`,
                  usage: { inputTokens: 10, outputTokens: 2 },
                },
          compaction: { maxContextTokens: 1_000 },
        },
      );
      const result = await running;
      expect(result.status).toBe('completed');
      const summaries = model.requests.filter(isSummary);
      // Input, 2 responses and their outputs (5): refused; then the older 3, then their summary and the newer 2.
      expect(summaries.map((r) => r.messages.length - 1)).toEqual([5, 3, 3]);
      expect(summaries[2]?.messages[0]).toEqual(
        user('Summary of the earlier part of this conversation:\nsummary of 3'),
      );
      expect(new Set(summaries.map((r) => r.idempotencyKey)).size).toBe(3);
      expect(result.events.filter((e) => e.type === 'context.compacted')).toEqual([
        expect.objectContaining({ summary: 'summary of 3', usage: { inputTokens: 20, outputTokens: 4 } }),
      ]);
      expect(turnRequests(model.requests)[3]?.messages[0]).toEqual(summaryMessage('summary of 3'));
    });

    test('a summary request that fails for good under the configured size is given up: the turn goes on uncompacted', async () => {
      const { model, result: running } = run(
        'compact-declined',
        [call(0), { ...call(1), usage: big }, { text: 'done' }],
        {
          summarize: () => ({ failWith: new ModelError('summary refused', false) }),
          compaction: { maxContextTokens: 1_000 },
        },
      );
      const result = await running;
      expect(result.status).toBe('completed');
      expect(result.events.some((e) => e.type === 'context.compacted')).toBe(false);
      expect(turnRequests(model.requests)[2]?.messages).toHaveLength(5);
    });
  });
}

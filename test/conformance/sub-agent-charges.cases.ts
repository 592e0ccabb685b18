import { agentTool, defineTool, type ModelRequest, renderToolOutput, scriptedModel } from 'durable-turns';
import { z } from 'zod';
import { type ConformanceHarness, runSpec } from './harness';
import { uniqueTurnId } from './support';

const usage = { inputTokens: 10, outputTokens: 1 };
/** How deep the asking turn is as a sub-agent (0: the parent). */
const depth = (request: ModelRequest) => request.turnId.split('/agent/').length - 1;

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a key up',
  input: z.object({ key: z.string() }),
  concurrencySafe: true,
  execute: ({ key }) => `value of ${key}`,
});

/** What a sub-agent spends is charged back to its parent turn's own budget and counts. */
export function subAgentChargeCases(harness: ConformanceHarness): void {
  describe(`sub-agent charges (${harness.name})`, () => {
    test('what a sub-agent spent (its own sub-agents’ included) counts in its parent’s responses, calls and tokens', async () => {
      // The parent asks a researcher, which asks a researcher of its own; each response costs 11 tokens.
      const model = scriptedModel(
        [
          (request) =>
            depth(request) === 2
              ? { text: 'the deep answer', usage }
              : {
                  toolCalls: [
                    { id: depth(request) === 0 ? 'r1' : 'r2', name: 'researcher', args: { task: 'dig' } },
                  ],
                  usage,
                },
          (request) => ({ text: depth(request) === 0 ? 'done' : 'found it', usage }),
        ],
        'scripted-charges',
      );
      const researcher = agentTool({ name: 'researcher', description: 'Digs', model: model.name });
      const turnId = uniqueTurnId('charge-nested');
      const result = await runSpec(harness, {
        turnId,
        input: 'dig',
        tools: [researcher, lookup],
        model,
        budget: { maxModelResponses: 10 },
      });
      expect(result.status).toBe('completed');
      // The sub-agent: its 2 responses and its call r2, plus its own sub-agent's 1 response.
      const charged = { modelResponses: 3, toolCalls: 1, usage: { inputTokens: 30, outputTokens: 3 } };
      expect(result.outputs).toEqual([
        expect.objectContaining({ toolCallId: 'r1', status: 'ok', content: 'found it', spent: charged }),
      ]);
      // The parent's own 2 responses and 1 call, and the charge.
      expect(result).toMatchObject({
        modelResponses: 5,
        toolCalls: 2,
        usage: { inputTokens: 50, outputTokens: 5 },
      });
      // Bookkeeping only: the output as the model reads it says nothing of it.
      const last = model.requests
        .filter((r) => r.turnId === turnId)
        .at(-1)
        ?.messages.at(-1);
      const part = last?.role === 'tool' ? last.content[0] : undefined;
      expect(part && renderToolOutput(part.output)).toBe('found it');
    });

    test('a parent whose budget the charge used up stops instead of asking its model again, even after a failed sub-agent', async () => {
      // The sub-agent never stops looking things up: its own budget of 2 responses ends it.
      const model = scriptedModel(
        Array.from(
          { length: 4 },
          (_, i) => (request: ModelRequest) =>
            depth(request) > 0
              ? { toolCalls: [{ id: `l${i}`, name: 'lookup', args: { key: `k${i}` } }], usage }
              : i === 0
                ? { toolCalls: [{ id: 'r1', name: 'researcher', args: { task: 'dig' } }], usage }
                : { text: 'never asked', usage },
        ),
        'scripted-charges',
      );
      const researcher = agentTool({
        name: 'researcher',
        description: 'Digs',
        model: model.name,
        budget: { maxModelResponses: 2 },
      });
      const turnId = uniqueTurnId('charge-exhausts');
      const result = await runSpec(harness, {
        turnId,
        input: 'dig',
        tools: [researcher, lookup],
        model,
        budget: { maxModelResponses: 3 },
      });
      // 1 response of its own and the sub-agent's 2: its budget of 3 is used up.
      expect(result.status).toBe('budget_exhausted');
      expect(result.reason).toMatch(/model response budget of 3 used up/);
      expect(model.requests.filter((r) => r.turnId === turnId)).toHaveLength(1);
      expect(result.outputs).toEqual([
        expect.objectContaining({
          toolCallId: 'r1',
          status: 'error',
          spent: { modelResponses: 2, toolCalls: 2, usage: { inputTokens: 20, outputTokens: 2 } },
        }),
      ]);
      expect(String(result.outputs[0]?.content)).toMatch(/ended budget_exhausted/);
      expect(result).toMatchObject({
        modelResponses: 3,
        toolCalls: 3,
        usage: { inputTokens: 30, outputTokens: 3 },
      });
    });
  });
}

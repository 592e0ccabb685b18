import { type ModelRequest, scriptedModel } from 'durable-turns';
import { z } from 'zod';
import { type ConformanceHarness, runSpec } from './harness';
import { uniqueTurnId } from './support';

const city = z.object({ city: z.string(), population: z.number().int().positive() });
const paris = { city: 'Paris', population: 2_100_000 };

/** The messages the model was sent for each of its requests, as text (the retries' reasons among them). */
const lastUserText = (request: ModelRequest | undefined) => {
  const last = request?.messages.at(-1);
  return last?.role === 'user' && typeof last.content === 'string' ? last.content : '';
};

export function structuredOutputCases(harness: ConformanceHarness): void {
  describe(`structured output (${harness.name})`, () => {
    test('an answer that matches the schema on the first try is the result’s output, asked of the provider as JSON', async () => {
      const model = scriptedModel([{ text: JSON.stringify(paris) }]);
      const result = await runSpec(harness, {
        turnId: uniqueTurnId('output-first'),
        input: 'Which city?',
        tools: [],
        model,
        output: { schema: city, name: 'city' },
      });
      expect(result.status).toBe('completed');
      expect(result.output).toEqual(paris);
      expect(model.requests[0]?.output).toEqual({ schema: z.toJSONSchema(city), name: 'city' });
    });

    test('an answer that does not match is asked again with what was wrong; a fenced JSON answer then counts', async () => {
      const model = scriptedModel([
        { text: 'Paris, with about two million people.' },
        { text: `\`\`\`json\n${JSON.stringify(paris)}\n\`\`\`` },
      ]);
      const result = await runSpec(harness, {
        turnId: uniqueTurnId('output-retry'),
        input: 'Which city?',
        tools: [],
        model,
        output: { schema: city },
      });
      expect(result.status).toBe('completed');
      expect(result.output).toEqual(paris);
      expect(model.requests).toHaveLength(2);
      expect(lastUserText(model.requests[1])).toMatch(
        /^Your answer does not match the required output schema: the answer is not JSON \(.+\)\. Answer again/,
      );
      // The rejection is in the transcript: the next turn of a conversation reads it too.
      expect(result.transcript.map((m) => m.role)).toEqual(['assistant', 'user', 'assistant']);
    });

    test('an answer that never matches fails the turn with the validation errors once the retries are spent', async () => {
      const model = scriptedModel([{ text: '{"city": 3}' }, { text: '{"city": 3}' }]);
      const result = await runSpec(harness, {
        turnId: uniqueTurnId('output-never'),
        input: 'Which city?',
        tools: [],
        model,
        output: { schema: city, maxRetries: 1 },
      });
      expect(result.status).toBe('failed');
      expect(result.reason).toMatch(
        /^the answer did not match the output schema after 2 answers: city: .*; population: /,
      );
      expect(result.output).toBeUndefined();
      expect(model.requests).toHaveLength(2);
    });
  });
}

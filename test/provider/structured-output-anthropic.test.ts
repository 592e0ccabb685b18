import { createAnthropic as createAnthropicOfSpecV3 } from '@ai-sdk/anthropic-v3';
import { aiSdkModel, createModel, InProcessExecutor, type TurnModel } from 'durable-turns';
import { z } from 'zod';
import { type AnthropicReply, startAnthropicServer, type TestServer } from '../support/models';
import { readFileTool } from '../support/models/wire-test-kit';

const apiKey = 'sk-ant-structured-0123456789';

/** Native structured output takes it (one optional field, every object closed). */
const withNickname = z.object({ city: z.string(), nickname: z.string().optional() });
/** An open object (a map): `@ai-sdk/anthropic` will not ask for it natively, it uses its `json` tool. */
const withFacts = z.object({ city: z.string(), facts: z.record(z.string(), z.string()) });

const readCall = (id: string) => ({ id, name: 'read_file', inputChunks: ['{"path":', '"a.txt"}'] });
const oslo = { city: 'Oslo', facts: { country: 'Norway' } };

/**
 * Structured answers through `@ai-sdk/anthropic` over real HTTP, on the in-process executor. The
 * provider asks natively (`output_config.format`) where the model and the schema allow it, which
 * leaves tool use as it is. Otherwise it offers a tool named `json` and forces a tool call
 * (`tool_choice: { type: 'any', disable_parallel_tool_use: true }`): the turn's tools stay callable,
 * but only one call a response, and never an answer in text. So a request with tools asks in words
 * there (the schema in the system prompt, the turn checking the answer); one without tools still
 * gets the `json` tool, which is then exactly the answer.
 */
describe('a structured answer from Anthropic', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function anthropic(script: readonly AnthropicReply[]): Promise<TestServer> {
    server = await startAnthropicServer(script);
    return server;
  }

  function claude(
    baseURL: string,
    model: string,
    providerOptions?: Record<string, Record<string, unknown>>,
  ): TurnModel {
    return createModel(
      {
        provider: 'anthropic',
        name: 'claude',
        model,
        baseURL,
        maxOutputTokens: 1024,
        ...(providerOptions ? { providerOptions } : {}),
      },
      { env: { ANTHROPIC_API_KEY: apiKey } },
    );
  }

  const run = (model: TurnModel, schema: z.ZodType, tools = [readFileTool]) =>
    new InProcessExecutor({ tools, model, modelRetry: { maxAttempts: 1 } }).runTurn({
      turnId: `structured-anthropic-${Date.now()}`,
      input: 'Which city is the capital of Norway?',
      output: { schema, name: 'city' },
    });

  /** What the tests read of a Messages request body. */
  type MessagesBody = {
    tools: { name: string; input_schema: unknown }[];
    tool_choice?: unknown;
    output_config?: unknown;
    system?: unknown;
  };
  const body = (index: number) => server?.requests[index]?.body as MessagesBody;
  const toolNames = (index: number) => body(index).tools.map((t) => t.name);

  it('asks natively where the model and schema allow it, the tools on offer as usual, and answers after a call', async () => {
    const { baseURL } = await anthropic([
      { kind: 'stream', toolUses: [readCall('toolu_1')] },
      { kind: 'stream', text: ['{"city":"Oslo"}'] },
    ]);
    const result = await run(claude(baseURL, 'claude-sonnet-4-5'), withNickname);
    expect(result).toMatchObject({ status: 'completed', output: { city: 'Oslo' }, toolCalls: 1 });
    for (const index of [0, 1]) {
      expect(body(index).output_config).toEqual({
        format: { type: 'json_schema', schema: z.toJSONSchema(withNickname) },
      });
      expect(toolNames(index)).toEqual(['read_file']);
      expect(body(index).tool_choice).toBeUndefined();
      expect(body(index).system).toBeUndefined();
    }
  });

  const jsonToolCases = [
    ['claude-sonnet-4-0, which has no native structured output', 'claude-sonnet-4-0', 'v4'],
    ['claude-sonnet-4-5 with a schema native output cannot take (a map)', 'claude-sonnet-4-5', 'v4'],
    ['claude-sonnet-4-5 with that schema, through @ai-sdk/anthropic 3 (spec v3)', 'claude-sonnet-4-5', 'v3'],
  ] as const;

  it.each(jsonToolCases)(
    '%s: with tools, asks in words instead of forcing the json tool, and parallel calls stay possible',
    async (_, modelId, spec) => {
      const { baseURL } = await anthropic([
        { kind: 'stream', toolUses: [readCall('toolu_1'), readCall('toolu_2')] },
        { kind: 'stream', text: [JSON.stringify(oslo)] },
      ]);
      const model =
        spec === 'v3'
          ? aiSdkModel({
              name: 'claude',
              model: createAnthropicOfSpecV3({ apiKey, baseURL })(modelId),
              maxOutputTokens: 1024,
            })
          : claude(baseURL, modelId);
      const result = await run(model, withFacts);
      expect(result).toMatchObject({ status: 'completed', output: oslo, toolCalls: 2 });
      for (const index of [0, 1]) {
        expect(toolNames(index)).toEqual(['read_file']);
        expect(body(index).tool_choice).toBeUndefined();
        expect(body(index).output_config).toBeUndefined();
        expect(body(index).system).toEqual([
          {
            type: 'text',
            text: `Give your final answer (city), once you call no more tools, as only a JSON value matching this JSON Schema, with no other text: ${JSON.stringify(z.toJSONSchema(withFacts))}`,
          },
        ]);
      }
    },
  );

  it('without tools, still asks through the forced json tool, whose input is the answer', async () => {
    const { baseURL } = await anthropic([
      {
        kind: 'stream',
        toolUses: [
          {
            id: 'toolu_json',
            name: 'json',
            inputChunks: ['{"city":"Oslo",', '"facts":{"country":"Norway"}}'],
          },
        ],
      },
    ]);
    const result = await run(claude(baseURL, 'claude-sonnet-4-0'), withFacts, []);
    expect(result).toMatchObject({ status: 'completed', output: oslo, toolCalls: 0 });
    expect(toolNames(0)).toEqual(['json']);
    expect(body(0).tools[0]?.input_schema).toEqual(z.toJSONSchema(withFacts));
    expect(body(0).tool_choice).toEqual({ type: 'any', disable_parallel_tool_use: true });
    expect(body(0).system).toBeUndefined();
  });

  it('keeps structuredOutputMode jsonTool when the configuration sets it: the json tool is forced beside the turn’s tools', async () => {
    const { baseURL } = await anthropic([
      { kind: 'stream', toolUses: [readCall('toolu_1')] },
      { kind: 'stream', toolUses: [{ id: 'toolu_json', name: 'json', inputChunks: ['{"city":"Oslo"}'] }] },
    ]);
    const model = claude(baseURL, 'claude-sonnet-4-5', { anthropic: { structuredOutputMode: 'jsonTool' } });
    const result = await run(model, withNickname);
    expect(result).toMatchObject({ status: 'completed', output: { city: 'Oslo' }, toolCalls: 1 });
    for (const index of [0, 1]) {
      expect(toolNames(index)).toEqual(['read_file', 'json']);
      expect(body(index).tool_choice).toEqual({ type: 'any', disable_parallel_tool_use: true });
    }
  });
});

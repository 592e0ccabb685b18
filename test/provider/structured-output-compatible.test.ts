import { createModel, InProcessExecutor, type TurnModel } from 'durable-turns';
import { z } from 'zod';
import { type OpenAiChatReply, startOpenAiChatServer, type TestServer } from '../support/models';
import { readFileTool } from '../support/models/wire-test-kit';

const withNickname = z.object({ city: z.string(), nickname: z.string().optional() });
const readCall = { id: 'call_1', name: 'read_file', argumentChunks: ['{"path":', '"a.txt"}'] };
const instruction = (withTools: boolean) =>
  `Give your final answer (city)${withTools ? ', once you call no more tools,' : ''} as only a JSON value matching this JSON Schema, with no other text: ${JSON.stringify(z.toJSONSchema(withNickname))}`;

/**
 * Structured answers through `@ai-sdk/openai-compatible` (vLLM, Ollama, llama.cpp, LM Studio…)
 * over real HTTP, on the in-process executor. The provider sends only `response_format:
 * { type: 'json_object' }` unless the model is made with structured outputs, so the schema reached
 * the model nowhere: it now goes in the instructions. And with tools on offer no response format
 * goes at all: these servers enforce it by constraining the whole output to JSON, which keeps the
 * model from calling a tool (vllm-project/vllm#39929).
 */
describe('a structured answer from an OpenAI-compatible server', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  function local(baseURL: string, structuredOutputs?: boolean): TurnModel {
    return createModel({
      provider: 'openai-compatible',
      name: 'local',
      model: 'qwen3',
      baseURL,
      ...(structuredOutputs !== undefined ? { structuredOutputs } : {}),
    });
  }

  async function turn(
    script: readonly OpenAiChatReply[],
    tools: (typeof readFileTool)[],
    structuredOutputs?: boolean,
  ) {
    server = await startOpenAiChatServer(script);
    const result = await new InProcessExecutor({
      tools,
      model: local(server.baseURL, structuredOutputs),
      modelRetry: { maxAttempts: 1 },
    }).runTurn({
      turnId: `structured-compatible-${Date.now()}`,
      input: 'Which city is the capital of Norway?',
      output: { schema: withNickname, name: 'city' },
    });
    const bodies = server.requests.map(
      (r) => r.body as { response_format?: unknown; tools?: unknown[]; messages: unknown[] },
    );
    return { result, bodies };
  }

  it.each([
    ['', undefined],
    [', even one made with structured outputs', true],
  ] as const)(
    'with tools%s: no response format, the schema in the instructions, and the turn answers after its call',
    async (_, structuredOutputs) => {
      const { result, bodies } = await turn(
        [
          { kind: 'stream', toolCalls: [readCall] },
          { kind: 'stream', text: ['{"city":"Oslo"}'] },
        ],
        [readFileTool],
        structuredOutputs,
      );
      expect(result).toMatchObject({ status: 'completed', output: { city: 'Oslo' }, toolCalls: 1 });
      expect(bodies).toHaveLength(2);
      for (const body of bodies) {
        expect(body.response_format).toBeUndefined();
        expect(body.tools).toHaveLength(1);
        expect(body.messages[0]).toEqual({ role: 'system', content: instruction(true) });
      }
    },
  );

  it('without tools: json_object, with the schema in the instructions', async () => {
    const { result, bodies } = await turn([{ kind: 'stream', text: ['{"city":"Oslo"}'] }], []);
    expect(result).toMatchObject({ status: 'completed', output: { city: 'Oslo' } });
    expect(bodies[0]?.response_format).toEqual({ type: 'json_object' });
    expect(bodies[0]?.tools).toBeUndefined();
    expect(bodies[0]?.messages).toEqual([
      { role: 'system', content: instruction(false) },
      { role: 'user', content: 'Which city is the capital of Norway?' },
    ]);
  });

  it('without tools, made with structured outputs: the schema as json_schema (non-strict, for its optional field), no instruction', async () => {
    const { result, bodies } = await turn([{ kind: 'stream', text: ['{"city":"Oslo"}'] }], [], true);
    expect(result).toMatchObject({ status: 'completed', output: { city: 'Oslo' } });
    expect(bodies[0]?.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'city', strict: false, schema: z.toJSONSchema(withNickname) },
    });
    expect(bodies[0]?.messages).toEqual([{ role: 'user', content: 'Which city is the capital of Norway?' }]);
  });
});

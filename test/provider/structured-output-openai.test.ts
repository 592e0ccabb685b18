import { createModel, InProcessExecutor, type TurnModel } from 'durable-turns';
import { z } from 'zod';
import {
  openAiErrorReply,
  type RecordedRequest,
  startOpenAiChatServer,
  startOpenAiResponsesServer,
  type TestServer,
} from '../support/models';
import { readFileTool } from '../support/models/wire-test-kit';

const apiKey = 'sk-structured-test-0123456789';

/** What a user writes: one field optional. */
const withNickname = z.object({ city: z.string(), nickname: z.string().optional() });
/** A schema strict mode takes as it is: every property required, the object closed. */
const city = z.object({ city: z.string(), population: z.number().int().positive() });

type Api = 'chat' | 'responses';
type JsonSchemaFormat = { name?: string; strict?: boolean; schema?: Record<string, unknown> };
/** What the tests read of a request body, chat's and the Responses API's. */
type OpenAiBody = {
  response_format?: { type: string; json_schema?: JsonSchemaFormat };
  text?: { format?: JsonSchemaFormat & { type: string } };
  tools?: unknown[];
};

/** The JSON Schema response format a request carried: chat's `response_format`, Responses' `text.format`. */
function formatOf(api: Api, request: RecordedRequest | undefined) {
  const body = request?.body as OpenAiBody | undefined;
  const format = api === 'chat' ? body?.response_format?.json_schema : body?.text?.format;
  if (format === undefined) return undefined;
  const { name, strict, schema } = format;
  return { name, strict, schema };
}

/**
 * OpenAI's check of a strict schema, as the API answers it (the message is the API's, as users
 * quote it, e.g. vercel/ai#6484): strict mode wants every property of an object in `required`.
 */
function strictRefusal(api: Api, request: RecordedRequest) {
  const format = formatOf(api, request);
  if (format?.strict !== true) return undefined;
  const properties = Object.keys((format.schema?.properties as object | undefined) ?? {});
  const required = (format.schema?.required as string[] | undefined) ?? [];
  const missing = properties.find((key) => !required.includes(key));
  return missing === undefined
    ? undefined
    : openAiErrorReply({
        status: 400,
        message: `Invalid schema for response_format '${format.name}': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`,
      });
}

/**
 * Structured answers through `@ai-sdk/openai` 4 over real HTTP, on the in-process executor. The
 * provider sends the schema as `json_schema` with `strict: true` unless told `strictJsonSchema:
 * false`; strict mode refuses a schema with an optional field (HTTP 400), which is what a zod
 * `.optional()` converts to. Such a schema now goes non-strict (the turn checks the answer itself);
 * a schema strict mode takes still goes strict.
 */
describe.each(['chat', 'responses'] as const)('a structured answer from OpenAI’s %s API', (api) => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const answer = (text: string) => ({ kind: 'stream', text: [text] }) as const;
  const readCall = (id: string) =>
    api === 'chat'
      ? { id, name: 'read_file', argumentChunks: ['{"path":', '"a.txt"}'] }
      : { callId: id, name: 'read_file', argumentChunks: ['{"path":', '"a.txt"}'] };

  /** A server answering each request in turn, unless OpenAI's strict check would refuse it. */
  async function openAi(replies: readonly object[]): Promise<TestServer> {
    const script = (request: RecordedRequest, index: number) =>
      strictRefusal(api, request) ?? (replies[index] as never);
    server = api === 'chat' ? await startOpenAiChatServer(script) : await startOpenAiResponsesServer(script);
    return server;
  }

  function gpt(baseURL: string, providerOptions?: Record<string, Record<string, unknown>>): TurnModel {
    return createModel(
      {
        provider: 'openai',
        api,
        name: 'gpt',
        model: 'gpt-4.1-mini',
        baseURL,
        ...(providerOptions ? { providerOptions } : {}),
      },
      { env: { OPENAI_API_KEY: apiKey } },
    );
  }

  const run = (model: TurnModel, schema: z.ZodType, tools = [readFileTool]) =>
    new InProcessExecutor({ tools, model, modelRetry: { maxAttempts: 1 } }).runTurn({
      turnId: `structured-${api}-${Date.now()}`,
      input: 'Which city is the capital of Norway?',
      output: { schema, name: 'city' },
    });

  it('sends a schema with an optional field non-strict, so the provider takes it, and the turn completes with the answer', async () => {
    const { baseURL, requests } = await openAi([answer('{"city":"Oslo"}')]);
    const result = await run(gpt(baseURL), withNickname);
    expect(result).toMatchObject({ status: 'completed', output: { city: 'Oslo' } });
    expect(formatOf(api, requests[0])).toEqual({
      name: 'city',
      strict: false,
      schema: z.toJSONSchema(withNickname),
    });
    if (api === 'chat') expect(requests[0]?.body).toMatchObject({ response_format: { type: 'json_schema' } });
    else expect(requests[0]?.body).toMatchObject({ text: { format: { type: 'json_schema' } } });
  });

  it('still sends a schema strict mode takes strict, with the tools, and the turn answers after its calls', async () => {
    const { baseURL, requests } = await openAi([
      { kind: 'stream', toolCalls: [readCall('call_1')] },
      answer('{"city":"Oslo","population":717710}'),
    ]);
    const result = await run(gpt(baseURL), city);
    expect(result).toMatchObject({ status: 'completed', output: { city: 'Oslo', population: 717710 } });
    expect(result.toolCalls).toBe(1);
    expect(requests).toHaveLength(2);
    for (const request of requests) {
      expect(formatOf(api, request)).toEqual({ name: 'city', strict: true, schema: z.toJSONSchema(city) });
      expect((request.body as OpenAiBody).tools).toHaveLength(1);
    }
  });

  it('keeps strictJsonSchema when the configuration sets it: strict on an optional field is refused as OpenAI refuses it', async () => {
    const { baseURL, requests } = await openAi([answer('{"city":"Oslo"}')]);
    const result = await run(gpt(baseURL, { openai: { strictJsonSchema: true } }), withNickname);
    expect(formatOf(api, requests[0])?.strict).toBe(true);
    expect(result.status).toBe('failed');
    expect(result.reason).toContain(
      "HTTP 400 Bad Request: invalid_request_error: Invalid schema for response_format 'city': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'nickname'.",
    );
  });
});

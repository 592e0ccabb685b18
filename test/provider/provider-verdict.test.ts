import { createOpenAI as createOpenAIOfSpecV3 } from '@ai-sdk/openai-v3';
import { aiSdkModel, createModel, InProcessExecutor, type TurnModel, type TurnResult } from 'durable-turns';
import {
  startAnthropicServer,
  startOpenAiChatServer,
  startOpenAiResponsesServer,
  type TestServer,
} from '../support/models';
import {
  anthropicContextOverflow,
  anthropicContextOverflowMessage,
  contextOverflowSaid,
  openAiContextOverflow,
  openAiContextOverflowMessage,
} from '../support/models/context-overflow-replies';
import {
  type RecordedReply,
  readRecording,
  startRecordedStreamServer,
} from '../support/models/recorded-stream-server';

const openAiKey = 'sk-verdict-test-0123456789';
const quota = readRecording('openai-responses', 'gpt-5-nano-insufficient-quota-error.sse');
const quotaMessage =
  'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.';

/**
 * Whether a provider's failure is asked again is the provider's call: real turns on the in-process
 * executor (its retries included, five attempts by default) against local servers over real HTTP,
 * answering with recorded in-stream errors byte for byte, with a dropped connection, and with the
 * context-overflow bodies OpenAI and Anthropic document (written from their documentation).
 */
describe('the provider’s verdict, over real HTTP on the in-process executor', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  function run(model: TurnModel): Promise<TurnResult> {
    return new InProcessExecutor({
      tools: [],
      model,
      modelRetry: { initialDelayMs: 5, maxDelayMs: 20 },
    }).runTurn({ turnId: 't1', input: 'hi' });
  }

  function responsesModel(sdk: 'openai' | 'openai-v3', baseURL: string): TurnModel {
    if (sdk === 'openai-v3')
      return aiSdkModel({
        name: 'wire',
        model: createOpenAIOfSpecV3({ apiKey: openAiKey, baseURL }).responses('gpt-5-nano'),
        secrets: [openAiKey],
      });
    return createModel(
      { provider: 'openai', api: 'responses', name: 'wire', model: 'gpt-5-nano', baseURL },
      { env: { OPENAI_API_KEY: openAiKey } },
    );
  }

  function compatibleModel(baseURL: string): TurnModel {
    return createModel({ provider: 'openai-compatible', name: 'wire', model: 'test-model', baseURL });
  }

  /** A provider that answers every request with the same recording, as a real one would say the same again. */
  async function replaying(path: string, reply: RecordedReply): Promise<TestServer> {
    server = await startRecordedStreamServer(path, () => reply);
    return server;
  }

  describe.each(['openai', 'openai-v3'] as const)('@ai-sdk/%s over the Responses API', (sdk) => {
    // At once, the provider throws before handing the stream over; after a pause, @ai-sdk/openai 4
    // hands the stream over and sends the error as a stream part.
    it.each([
      ['at once', undefined],
      ['after a pause', { text: 'event: error', ms: 200 }],
    ])(
      'asks once when insufficient_quota comes %s after HTTP 200, and ends the turn in the provider’s words',
      async (_, pauseBefore) => {
        const { baseURL, requests } = await replaying('/v1/responses', {
          body: quota,
          ...(pauseBefore ? { pauseBefore } : {}),
        });
        const result = await run(responsesModel(sdk, baseURL));
        expect(requests).toHaveLength(1);
        expect(result).toMatchObject({ status: 'failed', modelResponses: 0 });
        expect(result.reason).toBe(
          `model request 0 failed: openai.responses stream error insufficient_quota: ${quotaMessage} (not retried: the account's quota or billing)`,
        );
        expect(result.reason).not.toMatch(/HTTP|429/);
      },
    );
  });

  // Both over the OpenAI-compatible provider, each error after the reasoning it streamed.
  it.each([
    [
      'Groq’s stream ends in a tool_use_failed error event',
      'groq-gpt-oss-tool-use-failed-error.sse',
      /^model request 0 failed: openai-compatible\.chat stream error tool_use_failed after \d+ parts: Tool call validation failed: tool call validation failed: parameters for tool get_something_by_name did not match schema.*\(not retried: the provider found the request invalid\)$/,
    ],
    [
      'OpenRouter’s stream ends in an error chunk with a 400 of its own',
      'openrouter-minimax-error-after-length.sse',
      /^model request 0 failed: openai-compatible\.chat stream error 400 after \d+ parts: Token limit reached \(not retried: its error frame says 400\)$/,
    ],
  ])('asks once when %s, naming its code and message and no HTTP status', async (_, name, reason) => {
    const { baseURL, requests } = await replaying('/v1/chat/completions', {
      body: readRecording('openai-compatible', name),
    });
    const result = await run(compatibleModel(baseURL));
    expect(requests).toHaveLength(1);
    expect(result.status).toBe('failed');
    expect(result.reason).toMatch(reason);
    expect(result.reason).not.toContain('HTTP');
  });

  it.each([
    ['before any output, where the quota error came', 'event: response.output_item.added'],
    ['mid-text', 'event: response.output_text.delta'],
  ])('retries a connection dropped %s, and completes on the next answer', async (_, dropBefore) => {
    const answer = readRecording('openai-responses', 'gpt-4o-tool-then-text.step2.sse');
    server = await startRecordedStreamServer('/v1/responses', [
      { body: answer, dropBefore },
      { body: answer },
    ]);
    const result = await run(responsesModel('openai', server.baseURL));
    expect(server.requests).toHaveLength(2);
    expect(result).toMatchObject({ status: 'completed', text: 'The capital of France is Paris.' });
  });

  describe('a context overflow', () => {
    it('from OpenAI chat completions ends the turn at once, saying so', async () => {
      server = await startOpenAiChatServer([openAiContextOverflow, openAiContextOverflow]);
      const model = createModel(
        { provider: 'openai', name: 'wire', model: 'gpt-4.1-mini', baseURL: server.baseURL },
        { env: { OPENAI_API_KEY: openAiKey } },
      );
      const result = await run(model);
      expect(server.requests).toHaveLength(1);
      expect(result.status).toBe('failed');
      expect(result.reason).toBe(
        `model request 0 failed: openai.chat rejected the request with HTTP 400 Bad Request: context_length_exceeded: ${openAiContextOverflowMessage} ${contextOverflowSaid}`,
      );
    });

    it('from the OpenAI Responses API ends the turn at once, saying so', async () => {
      server = await startOpenAiResponsesServer([openAiContextOverflow, openAiContextOverflow]);
      const result = await run(responsesModel('openai', server.baseURL));
      expect(server.requests).toHaveLength(1);
      expect(result.reason).toContain('HTTP 400 Bad Request: context_length_exceeded');
      expect(result.reason).toContain(contextOverflowSaid);
    });

    it('from Anthropic ends the turn at once, saying so', async () => {
      server = await startAnthropicServer([anthropicContextOverflow, anthropicContextOverflow]);
      const model = createModel(
        { provider: 'anthropic', name: 'wire', model: 'claude-sonnet-4-5', baseURL: server.baseURL },
        { env: { ANTHROPIC_API_KEY: 'sk-ant-verdict-0123456789' } },
      );
      const result = await run(model);
      expect(server.requests).toHaveLength(1);
      expect(result.status).toBe('failed');
      expect(result.reason).toBe(
        `model request 0 failed: anthropic.messages rejected the request with HTTP 400 Bad Request: invalid_request_error: ${anthropicContextOverflowMessage} ${contextOverflowSaid}`,
      );
    });
  });
});

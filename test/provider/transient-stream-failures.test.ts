import { createModel, InProcessExecutor, type TurnModel, type TurnResult } from 'durable-turns';
import {
  type AnthropicReply,
  type OpenAiChatReply,
  openAiErrorReply,
  startAnthropicServer,
  startOpenAiChatServer,
  type TestServer,
} from '../support/models';
import { readFileTool } from '../support/models/wire-test-kit';

/**
 * Real turns on the in-process executor against the local provider servers, over real HTTP: how a
 * mangled stream is retried, and what a turn that runs out of retries says.
 */
describe('transient stream failures on the in-process executor', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function openAiTurn(script: readonly OpenAiChatReply[]): Promise<TurnResult> {
    server = await startOpenAiChatServer(script);
    const model = createModel({
      provider: 'openai-compatible',
      name: 'wire',
      model: 'test-model',
      baseURL: server.baseURL,
    });
    return run(model);
  }

  async function anthropicTurn(script: readonly AnthropicReply[]): Promise<TurnResult> {
    server = await startAnthropicServer(script);
    const model = createModel(
      { provider: 'anthropic', name: 'wire', model: 'claude-sonnet-4-5', baseURL: server.baseURL },
      { env: { ANTHROPIC_API_KEY: 'sk-ant-test-0123456789' } },
    );
    return run(model);
  }

  function run(model: TurnModel): Promise<TurnResult> {
    const executor = new InProcessExecutor({
      tools: [readFileTool],
      model,
      modelRetry: { maxAttempts: 3, initialDelayMs: 5, maxDelayMs: 20 },
    });
    return executor.runTurn({ turnId: 't1', input: 'Read a.txt' });
  }

  const answer: OpenAiChatReply = { kind: 'stream', text: ['done'] };

  it('retries a garbage chunk and completes on the next answer', async () => {
    const result = await openAiTurn([
      { kind: 'stream', text: ['par'], inject: [{ afterChunks: 2, data: '}{' }] },
      answer,
    ]);
    expect(result).toMatchObject({ status: 'completed', text: 'done' });
    expect(server?.requests).toHaveLength(2);
  });

  it('retries a stream that ends cleanly without a finish reason, as it retries a reset at the same point', async () => {
    const result = await openAiTurn([
      { kind: 'stream', text: ['par'], endWithoutFinish: true },
      { kind: 'stream', text: ['par'], truncateAfterChunks: 2 },
      answer,
    ]);
    expect(result).toMatchObject({ status: 'completed', text: 'done' });
    expect(server?.requests).toHaveLength(3);
  });

  it('retries an Anthropic stream that ends without message_stop instead of completing on its partial text', async () => {
    const result = await anthropicTurn([
      { kind: 'stream', text: ['par'], endWithoutStop: true },
      { kind: 'stream', text: ['done'] },
    ]);
    expect(result).toMatchObject({ status: 'completed', text: 'done' });
    expect(server?.requests).toHaveLength(2);
  });

  it('fails the turn when retries run out, naming the last answer', async () => {
    const garbage = (n: number): OpenAiChatReply => ({
      kind: 'stream',
      text: ['a'],
      inject: [{ afterChunks: 1, data: `garbage #${n}` }],
    });
    const result = await openAiTurn([garbage(1), garbage(2), garbage(3)]);
    expect(result.status).toBe('failed');
    expect(result.reason).toContain('model request 0 failed');
    expect(result.reason).toContain('garbage #3');
    expect(server?.requests).toHaveLength(3);
  });

  it('does not retry a 400, and says what the provider objected to', async () => {
    const result = await openAiTurn([
      openAiErrorReply({ status: 400, message: 'tools[0] is invalid' }),
      answer,
    ]);
    expect(result.status).toBe('failed');
    expect(result.reason).toContain('HTTP 400 Bad Request');
    expect(result.reason).toContain('tools[0] is invalid');
    expect(server?.requests).toHaveLength(1);
  });

  it('waits as long as a 429’s retry-after-ms says before asking again', async () => {
    const started = Date.now();
    const result = await openAiTurn([
      openAiErrorReply({ status: 429, message: 'slow down', headers: { 'retry-after-ms': '300' } }),
      openAiErrorReply({ status: 503, message: 'busy' }),
      answer,
    ]);
    expect(result).toMatchObject({ status: 'completed', text: 'done' });
    expect(server?.requests).toHaveLength(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it('keeps a call accepted before a garbage chunk instead of asking the same request again', async () => {
    const result = await openAiTurn([
      {
        kind: 'stream',
        toolCalls: [{ id: 'call_a', name: 'read_file', argumentChunks: ['{"path":', ' "a.txt"}'] }],
        inject: [{ afterChunks: 3, data: 'garbage' }],
      },
      answer,
    ]);
    expect(result).toMatchObject({ status: 'completed', text: 'done' });
    expect(result.outputs).toEqual([
      expect.objectContaining({ toolCallId: 'call_a', status: 'ok', content: 'contents of a.txt' }),
    ]);
    expect(server?.requests).toHaveLength(2);
  });
});

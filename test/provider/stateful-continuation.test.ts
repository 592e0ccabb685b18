import { createModel, InProcessExecutor, type TurnResult } from 'durable-turns';
import {
  type OpenAiResponsesReply,
  openAiErrorReply,
  startOpenAiResponsesServer,
  type TestServer,
} from '../support/models';
import { readFileTool } from '../support/models/wire-test-kit';

/**
 * Receipts and stateful continuation over real HTTP, against a local server speaking the OpenAI
 * Responses API's streaming format: each response's id is recorded with it, and a turn that opts in
 * sends only what is new after the last receipt, with `previous_response_id`.
 */
describe('stateful continuation over the Responses API', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const readCall = (callId: string, path: string): OpenAiResponsesReply => ({
    kind: 'stream',
    id: `resp_${callId}`,
    toolCalls: [{ callId, name: 'read_file', argumentChunks: ['{"path":', `"${path}"}`] }],
    usage: { inputTokens: 10, outputTokens: 5 },
  });

  async function turn(
    script: readonly OpenAiResponsesReply[],
    continuation: 'full' | 'since-receipt',
  ): Promise<TurnResult> {
    server = await startOpenAiResponsesServer(script);
    const model = createModel(
      { provider: 'openai', api: 'responses', name: 'responses', model: 'gpt-test', baseURL: server.baseURL },
      { env: { OPENAI_API_KEY: 'sk-test-0123456789' } },
    );
    const executor = new InProcessExecutor({
      tools: [readFileTool],
      model,
      continuation,
      modelRetry: { maxAttempts: 3, initialDelayMs: 5, maxDelayMs: 20 },
    });
    return executor.runTurn({
      turnId: `continuation-${continuation}-${Date.now()}`,
      input: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Read a.txt, then b.txt' },
      ],
    });
  }

  type InputItem = { type?: string; role?: string; call_id?: string };
  const bodyOf = (index: number) => {
    const body = server?.requests[index]?.body;
    if (typeof body !== 'object' || body === null) throw new Error(`no request #${index}`);
    return body as { input: InputItem[]; previous_response_id?: string };
  };
  const inputOf = (index: number) => bodyOf(index).input;
  const previousOf = (index: number) => bodyOf(index).previous_response_id;

  it('records each response id as its receipt; with since-receipt, each request sends the system message and what is new, continuing from the last receipt', async () => {
    const result = await turn(
      [
        readCall('c1', 'a.txt'),
        readCall('c2', 'b.txt'),
        { kind: 'stream', id: 'resp_end', text: ['Both read.'] },
      ],
      'since-receipt',
    );
    expect(result).toMatchObject({ status: 'completed', text: 'Both read.' });
    const responded = result.events.flatMap((e) => (e.type === 'model.responded' ? [e.responseId] : []));
    expect(responded).toEqual(['resp_c1', 'resp_c2', 'resp_end']);
    const requested = result.events.flatMap((e) => (e.type === 'model.requested' ? [e.continuesFrom] : []));
    expect(requested).toEqual([undefined, 'resp_c1', 'resp_c2']);

    expect(previousOf(0)).toBeUndefined();
    expect(inputOf(0).map((i) => i.role ?? i.type)).toEqual(['system', 'user']);
    // Request 2 continues from response 1: the instructions again, and the one call's output.
    expect(previousOf(1)).toBe('resp_c1');
    expect(inputOf(1).map((i) => i.role ?? i.type)).toEqual(['system', 'function_call_output']);
    expect(inputOf(1)[1]?.call_id).toBe('c1');
    expect(previousOf(2)).toBe('resp_c2');
    expect(inputOf(2).map((i) => i.call_id ?? i.role)).toEqual(['system', 'c2']);
  });

  it('without it, every request carries the whole transcript and no previous response id', async () => {
    await turn([readCall('c1', 'a.txt'), { kind: 'stream', text: ['Read.'] }], 'full');
    expect(previousOf(1)).toBeUndefined();
    expect(inputOf(1).map((i) => i.role ?? i.type)).toEqual([
      'system',
      'user',
      'function_call',
      'function_call_output',
    ]);
  });

  it('a request that failed is asked again from the same receipt: the failed attempt leaves none', async () => {
    const result = await turn(
      [
        readCall('c1', 'a.txt'),
        openAiErrorReply({ status: 503, message: 'overloaded' }),
        { kind: 'stream', id: 'resp_end', text: ['Read.'] },
      ],
      'since-receipt',
    );
    expect(result.status).toBe('completed');
    expect([previousOf(1), previousOf(2)]).toEqual(['resp_c1', 'resp_c1']);
    expect(inputOf(2).map((i) => i.call_id ?? i.role)).toEqual(['system', 'c1']);
  });

  it('refuses since-receipt with store: false when the turn starts, before any request: the provider keeps no response to continue from', async () => {
    server = await startOpenAiResponsesServer([readCall('c1', 'a.txt')]);
    const model = createModel(
      {
        provider: 'openai',
        api: 'responses',
        name: 'zdr',
        model: 'gpt-test',
        baseURL: server.baseURL,
        providerOptions: { openai: { store: false } },
      },
      { env: { OPENAI_API_KEY: 'sk-test-0123456789' } },
    );
    const executor = new InProcessExecutor({ tools: [readFileTool], model, continuation: 'since-receipt' });
    await expect(executor.runTurn({ turnId: `zdr-${Date.now()}`, input: 'Read a.txt' })).rejects.toThrow(
      "continuation 'since-receipt' cannot work with model zdr: providerOptions.openai.store is false, so the provider keeps no response to continue from; use continuation 'full'",
    );
    expect(server.requests).toHaveLength(0);
    // The model refuses a continued request itself too (on Temporal the worker sees only requests).
    const continued = model.stream({
      turnId: 't',
      responseIndex: 1,
      messages: [{ role: 'user', content: 'x' }],
      tools: [],
      idempotencyKey: 't/model/1',
      continuation: { previousResponseId: 'resp_1', messages: [] },
    });
    await expect(continued[Symbol.asyncIterator]().next()).rejects.toMatchObject({
      retryable: false,
      message: expect.stringContaining('cannot continue from response resp_1'),
    });
    expect(server.requests).toHaveLength(0);
  });
});

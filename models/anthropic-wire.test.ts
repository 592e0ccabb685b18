import { createAnthropic as createAnthropicOfSpecV3 } from '@ai-sdk/anthropic-v3';
import { buildModelResponse, ModelError, type ModelStreamPart, type TurnModel } from '../core';
import {
  type AnthropicReply,
  anthropicErrorReply,
  startAnthropicServer,
} from '../test/support/models/anthropic-server';
import type { TestServer } from '../test/support/models/recording-server';
import { transcriptWithToolResult, wireRegistry, wireRequest } from '../test/support/models/wire-test-kit';
import { aiSdkModel } from './ai-sdk-model';
import { createModel } from './create-model';
import { streamResponse } from './stream-response';

const apiKey = 'sk-ant-wire-test-0123456789';

/**
 * Real HTTP against a local Anthropic Messages server, through the real `@ai-sdk/anthropic` provider:
 * the current major (4, LanguageModel spec v4) and the previous one (3, spec v3), which applications
 * that have not upgraded still plug in.
 */
describe.each(['v4', 'v3'] as const)('the anthropic provider of spec %s over the Messages API', (spec) => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function modelFor(
    script: readonly AnthropicReply[],
  ): Promise<{ model: TurnModel; server: TestServer }> {
    server = await startAnthropicServer(script);
    if (spec === 'v3') {
      const previous = createAnthropicOfSpecV3({ apiKey, baseURL: server.baseURL })('claude-sonnet-4-5');
      return {
        model: aiSdkModel({ name: 'wire', model: previous, maxOutputTokens: 1024, secrets: [apiKey] }),
        server,
      };
    }
    const model = createModel(
      {
        provider: 'anthropic',
        name: 'wire',
        model: 'claude-sonnet-4-5',
        baseURL: server.baseURL,
        maxOutputTokens: 1024,
      },
      { env: { ANTHROPIC_API_KEY: apiKey } },
    );
    return { model, server };
  }

  async function failure(model: TurnModel): Promise<ModelError> {
    const error: unknown = await streamResponse({ model, request: wireRequest() }).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!ModelError.isInstance(error)) throw new Error(`expected a ModelError, got ${String(error)}`);
    return error;
  }

  it('streams thinking and text deltas to observers unchanged, with usage and stop reason; the thinking keeps its signature', async () => {
    const { model } = await modelFor([
      {
        kind: 'stream',
        thinking: ['hm', 'm'],
        text: ['Hel', 'lo'],
        usage: { inputTokens: 21, outputTokens: 5 },
      },
    ]);
    const deltas: string[] = [];
    const { collected, broken } = await streamResponse({
      model,
      request: wireRequest(),
      observers: [{ onModelDelta: (e) => deltas.push(`${e.type}:${e.delta}`) }],
    });
    expect(broken).toBeUndefined();
    expect(deltas).toEqual(['reasoning:hm', 'reasoning:m', 'text:Hel', 'text:lo']);
    expect(collected).toEqual({
      parts: [
        // The signature Anthropic needs back with the block (a signature_delta, no text of its own).
        { type: 'reasoning', text: 'hmm', providerMetadata: { anthropic: { signature: 'sig-test' } } },
        { type: 'text', text: 'Hello' },
      ],
      calls: [],
      usage: { inputTokens: 21, outputTokens: 5 },
      finishReason: 'stop',
      complete: true,
      // The message's id: the receipt the turn records with the response.
      responseId: 'msg_test',
    });
  });

  it('joins input_json_delta pieces into one complete call per tool_use block', async () => {
    const { model } = await modelFor([
      {
        kind: 'stream',
        text: ['Reading both.'],
        toolUses: [
          { id: 'toolu_a', name: 'read_file', inputChunks: ['{"pa', 'th": "a', '.txt"}'] },
          { id: 'toolu_b', name: 'read_file', inputChunks: ['', '{"path": "b.txt"}'] },
        ],
        usage: { inputTokens: 50, outputTokens: 30 },
      },
    ]);
    const { collected } = await streamResponse({ model, request: wireRequest() });
    expect(collected.calls).toEqual([
      { toolCallId: 'toolu_a', toolName: 'read_file', input: '{"path": "a.txt"}' },
      { toolCallId: 'toolu_b', toolName: 'read_file', input: '{"path": "b.txt"}' },
    ]);
    expect(collected.usage).toEqual({ inputTokens: 50, outputTokens: 30 });
    expect(collected.finishReason).toBe('tool-calls');
    const response = buildModelResponse({ collected, registry: wireRegistry, responseIndex: 0 });
    expect(response.calls.map((c) => [c.toolCallId, c.input, c.rejection])).toEqual([
      ['toolu_a', { path: 'a.txt' }, undefined],
      ['toolu_b', { path: 'b.txt' }, undefined],
    ]);
  });

  it('hands a call on when its block completes, before the message ends', async () => {
    const { model } = await modelFor([
      {
        kind: 'stream',
        toolUses: [{ id: 'toolu_a', name: 'read_file', inputChunks: ['{"path":', '"a.txt"}'] }],
        finishDelayMs: 400,
      },
    ]);
    const seen: { type: ModelStreamPart['type']; at: number }[] = [];
    await streamResponse({
      model,
      request: wireRequest(),
      onPart: (p) => {
        seen.push({ type: p.type, at: Date.now() });
      },
    });
    const call = seen.find((p) => p.type === 'tool-call');
    const finish = seen.find((p) => p.type === 'finish');
    expect(call && finish && finish.at - call.at).toBeGreaterThanOrEqual(250);
  });

  it('hands a call without arguments on when its block completes, before the message ends', async () => {
    const { model } = await modelFor([
      {
        kind: 'stream',
        toolUses: [{ id: 'toolu_a', name: 'read_file', inputChunks: [''] }],
        finishDelayMs: 400,
      },
    ]);
    const seen: { part: ModelStreamPart; at: number }[] = [];
    await streamResponse({
      model,
      request: wireRequest(),
      onPart: (part) => {
        seen.push({ part, at: Date.now() });
      },
    });
    const call = seen.find((p) => p.part.type === 'tool-call');
    const finish = seen.find((p) => p.part.type === 'finish');
    expect(call?.part).toEqual({
      type: 'tool-call',
      toolCallId: 'toolu_a',
      toolName: 'read_file',
      input: '{}',
    });
    expect(call && finish && finish.at - call.at).toBeGreaterThanOrEqual(250);
  });

  it('sends the idempotency key as a header and tool results as tool_result blocks, errors flagged', async () => {
    const { model, server } = await modelFor([{ kind: 'stream', text: ['ok'] }]);
    const messages = [
      ...transcriptWithToolResult,
      {
        role: 'assistant' as const,
        content: [
          { type: 'tool-call' as const, toolCallId: 'call_2', toolName: 'read_file', input: { path: 'b' } },
        ],
      },
      {
        role: 'tool' as const,
        content: [
          {
            type: 'tool-result' as const,
            toolCallId: 'call_2',
            toolName: 'read_file',
            output: {
              status: 'error' as const,
              content: 'timed out after 5000 ms',
              attempts: 3,
              errorType: 'timeout',
            },
          },
        ],
      },
    ];
    await streamResponse({ model, request: wireRequest({ messages, idempotencyKey: 't1/model/2' }) });
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request?.headers['idempotency-key']).toBe('t1/model/2');
    expect(request?.headers['x-api-key']).toBe(apiKey);
    expect(request?.body).toMatchObject({
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      stream: true,
      system: [{ type: 'text', text: 'You are terse.' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Read a.txt' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Reading it.' },
            { type: 'tool_use', id: 'call_1', name: 'read_file', input: { path: 'a.txt' } },
          ],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'call_1', content: '{"text":"hello"}' }],
        },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'call_2', name: 'read_file', input: { path: 'b' } }],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'call_2',
              is_error: true,
              content: '[error: timeout] timed out after 5000 ms',
            },
          ],
        },
      ],
      tools: [{ name: 'read_file', description: 'Reads a file', input_schema: { type: 'object' } }],
    });
  });

  it('sends an earlier call whose arguments were not JSON as an object, which the Messages API requires', async () => {
    const { model, server } = await modelFor([{ kind: 'stream', text: ['ok'] }]);
    const messages = [
      { role: 'user' as const, content: 'go' },
      {
        role: 'assistant' as const,
        content: [
          {
            type: 'tool-call' as const,
            toolCallId: 'toolu_x',
            toolName: 'read_file',
            input: '{"path": "a.t',
          },
        ],
        partial: { reason: 'max_tokens' },
      },
      {
        role: 'tool' as const,
        content: [
          {
            type: 'tool-result' as const,
            toolCallId: 'toolu_x',
            toolName: 'read_file',
            output: {
              status: 'error' as const,
              content: 'not valid JSON',
              attempts: 0,
              errorType: 'invalid-arguments',
            },
          },
        ],
      },
    ];
    await streamResponse({ model, request: wireRequest({ messages }) });
    expect(server.requests[0]?.body).toMatchObject({
      messages: [
        {},
        { content: [{ type: 'tool_use', id: 'toolu_x', input: { invalid_arguments: '{"path": "a.t' } }] },
        { content: [{ type: 'tool_result', tool_use_id: 'toolu_x', is_error: true }] },
      ],
    });
  });

  it('turns 429 with retry-after into a retryable error that says how long to wait, without retrying itself', async () => {
    const { model, server } = await modelFor([
      anthropicErrorReply({
        status: 429,
        message: 'Number of request tokens has exceeded your rate limit',
        type: 'rate_limit_error',
        headers: { 'retry-after': '7' },
      }),
    ]);
    const error = await failure(model);
    expect(error).toMatchObject({ retryable: true, retryAfterMs: 7000 });
    expect(error.message).toContain('HTTP 429');
    expect(server.requests).toHaveLength(1);
  });

  it('treats a 500 and an in-stream overloaded error as retryable', async () => {
    const { model } = await modelFor([
      anthropicErrorReply({ status: 500, message: 'Internal server error', type: 'api_error' }),
      { kind: 'stream', text: ['par'], streamError: { type: 'overloaded_error', message: 'Overloaded' } },
    ]);
    expect(await failure(model)).toMatchObject({ retryable: true });
    expect(await failure(model)).toMatchObject({
      retryable: true,
      message: expect.stringContaining('Overloaded'),
    });
  });

  it('treats a 400 as final, naming the status and the provider’s message but not the key', async () => {
    const { model } = await modelFor([
      anthropicErrorReply({ status: 400, message: 'messages.1.content: tool_use ids must be unique' }),
    ]);
    const error = await failure(model);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('HTTP 400 Bad Request');
    expect(error.message).toContain('tool_use ids must be unique');
    expect(error.message).not.toContain(apiKey);
  });

  it('keeps a complete call when the connection drops mid-response, and reports the stream broken', async () => {
    const { model } = await modelFor([
      {
        kind: 'stream',
        toolUses: [
          { id: 'toolu_a', name: 'read_file', inputChunks: ['{"path":', ' "a.txt"}'] },
          { id: 'toolu_b', name: 'read_file', inputChunks: ['{"path":', ' "b.t'] },
        ],
        // message_start, then block a: start, 2 deltas, stop; then block b: start, 1 delta.
        truncateAfterEvents: 7,
      },
    ]);
    const { collected, broken } = await streamResponse({ model, request: wireRequest() });
    expect(broken).toMatchObject({ retryable: true });
    expect(collected.calls).toEqual([
      { toolCallId: 'toolu_a', toolName: 'read_file', input: '{"path": "a.txt"}' },
    ]);
  });

  it('retries a garbage chunk mid-stream, naming what the provider sent', async () => {
    const { model } = await modelFor([
      // After message_start, the text block's start and its first delta.
      {
        kind: 'stream',
        text: ['Hel', 'lo'],
        inject: [{ afterChunks: 3, data: '{"type": "content_block_delta", oops' }],
      },
    ]);
    const error = await failure(model);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('{"type": "content_block_delta", oops');
  });

  it('retries a garbage first chunk, naming it where the provider still has it', async () => {
    const { model } = await modelFor([
      { kind: 'stream', text: ['a'], inject: [{ afterChunks: 0, data: 'garbage!' }] },
    ]);
    const error = await failure(model);
    expect(error.retryable).toBe(true);
    // The v4 provider reads the first chunk before handing the stream over, and drops it when unreadable.
    expect(error.message).toContain(spec === 'v3' ? 'garbage!' : 'first stream chunk it could not read');
  });

  it('retries a stream that ends cleanly without message_delta or message_stop, saying how far it got', async () => {
    const { model } = await modelFor([{ kind: 'stream', text: ['Hel', 'lo'], endWithoutStop: true }]);
    const error = await failure(model);
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/ended without a finish reason after 2 parts/);
  });

  it('keeps a complete call when the stream ends cleanly without a stop reason, and reports it broken', async () => {
    const { model } = await modelFor([
      {
        kind: 'stream',
        toolUses: [{ id: 'toolu_a', name: 'read_file', inputChunks: ['{"path":', ' "a.txt"}'] }],
        endWithoutStop: true,
      },
    ]);
    const { collected, broken } = await streamResponse({ model, request: wireRequest() });
    expect(broken).toMatchObject({ retryable: true, message: expect.stringContaining('after 1 part') });
    expect(collected.calls).toEqual([
      { toolCallId: 'toolu_a', toolName: 'read_file', input: '{"path": "a.txt"}' },
    ]);
  });

  it('passes on a call whose input is not JSON, which the registry then rejects as invalid arguments', async () => {
    const { model } = await modelFor([
      {
        kind: 'stream',
        toolUses: [{ id: 'toolu_a', name: 'read_file', inputChunks: ['{"path": ', 'a.txt}'] }],
      },
    ]);
    const { collected, broken } = await streamResponse({ model, request: wireRequest() });
    expect(broken).toBeUndefined();
    expect(collected.calls).toEqual([
      { toolCallId: 'toolu_a', toolName: 'read_file', input: '{"path": a.txt}' },
    ]);
    const [call] = buildModelResponse({ collected, registry: wireRegistry, responseIndex: 0 }).calls;
    expect(call?.rejection?.errorType).toBe('invalid-arguments');
  });
});

import { createOpenAI as createOpenAIOfSpecV3 } from '@ai-sdk/openai-v3';
import { buildModelResponse, ModelError, type ModelStreamPart, type TurnModel } from '../core';
import {
  type OpenAiChatReply,
  openAiErrorReply,
  startOpenAiChatServer,
} from '../test/support/models/openai-chat-server';
import type { TestServer } from '../test/support/models/recording-server';
import { transcriptWithToolResult, wireRegistry, wireRequest } from '../test/support/models/wire-test-kit';
import { aiSdkModel } from './ai-sdk-model';
import { createModel } from './create-model';
import { streamResponse } from './stream-response';

const apiKey = 'sk-wire-test-0123456789abcdef';

/**
 * Real HTTP against a local chat-completions server, through the real AI SDK providers: the OpenAI
 * provider's chat model and the OpenAI-compatible provider (vLLM, Ollama, llama.cpp) speak the same
 * wire. `openai-v3` is the previous major (`@ai-sdk/openai` 3, LanguageModel spec v3), which
 * applications that have not upgraded still plug in.
 */
describe.each(['openai', 'openai-compatible', 'openai-v3'] as const)(
  'the %s provider over chat-completions',
  (provider) => {
    let server: TestServer | undefined;
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });

    async function modelFor(
      script: readonly OpenAiChatReply[],
    ): Promise<{ model: TurnModel; server: TestServer }> {
      server = await startOpenAiChatServer(script);
      const model =
        provider === 'openai-v3'
          ? aiSdkModel({
              name: 'wire',
              model: createOpenAIOfSpecV3({ apiKey, baseURL: server.baseURL }).chat('gpt-4.1-mini'),
              secrets: [apiKey],
            })
          : createModel(
              {
                provider,
                name: 'wire',
                model: 'gpt-4.1-mini',
                baseURL: server.baseURL,
                apiKeyEnv: 'WIRE_KEY',
              },
              { env: { WIRE_KEY: apiKey } },
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

    it('streams text deltas to observers unchanged, with usage and finish reason from the last chunks', async () => {
      const { model } = await modelFor([
        { kind: 'stream', text: ['Hel', 'lo, ', 'world'], usage: { promptTokens: 12, completionTokens: 3 } },
      ]);
      const deltas: string[] = [];
      const { collected, broken } = await streamResponse({
        model,
        request: wireRequest(),
        observers: [{ onModelDelta: (e) => deltas.push(`${e.type}:${e.delta}`) }],
      });
      expect(broken).toBeUndefined();
      expect(deltas).toEqual(['text:Hel', 'text:lo, ', 'text:world']);
      expect(collected).toEqual({
        parts: [{ type: 'text', text: 'Hello, world' }],
        calls: [],
        usage: { inputTokens: 12, outputTokens: 3 },
        finishReason: 'stop',
        complete: true,
        // The completion's id: the receipt the turn records with the response.
        responseId: 'chatcmpl-test',
      });
    });

    it('joins tool-call arguments split across chunks into one complete call per tool call', async () => {
      const { model } = await modelFor([
        {
          kind: 'stream',
          toolCalls: [
            { id: 'call_a', name: 'read_file', argumentChunks: ['{"pa', 'th": "a', '.txt"}'] },
            { id: 'call_b', name: 'read_file', argumentChunks: ['{', '"path":', ' "b.txt"', '}'] },
          ],
          usage: { promptTokens: 40, completionTokens: 17 },
        },
      ]);
      const { collected } = await streamResponse({ model, request: wireRequest() });
      expect(collected.calls).toEqual([
        { toolCallId: 'call_a', toolName: 'read_file', input: '{"path": "a.txt"}' },
        { toolCallId: 'call_b', toolName: 'read_file', input: '{"path": "b.txt"}' },
      ]);
      expect(collected.usage).toEqual({ inputTokens: 40, outputTokens: 17 });
      expect(collected.finishReason).toBe('tool-calls');
      const response = buildModelResponse({ collected, registry: wireRegistry, responseIndex: 0 });
      expect(response.calls.map((c) => [c.toolCallId, c.input, c.rejection])).toEqual([
        ['call_a', { path: 'a.txt' }, undefined],
        ['call_b', { path: 'b.txt' }, undefined],
      ]);
    });

    it('hands a call on as soon as its arguments close, before the response ends', async () => {
      // The server holds the response's end until the call has been handed on (or, if it never is
      // before the end, for 10 s): a stream that kept the call until the end fails this either way.
      let handedOn!: () => void;
      const called = new Promise<void>((resolve) => {
        handedOn = resolve;
      });
      const { model } = await modelFor([
        {
          kind: 'stream',
          toolCalls: [{ id: 'call_a', name: 'read_file', argumentChunks: ['{"path":', '"a.txt"}'] }],
          finishAfter: Promise.race([called, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]),
        },
      ]);
      const seen: ModelStreamPart['type'][] = [];
      let beforeTheEnd = false;
      await streamResponse({
        model,
        request: wireRequest(),
        onPart: (p) => {
          seen.push(p.type);
          if (p.type === 'tool-call' && !seen.includes('finish')) {
            beforeTheEnd = true;
            handedOn();
          }
        },
      });
      expect(beforeTheEnd).toBe(true);
      expect(seen.indexOf('tool-call')).toBeLessThan(seen.indexOf('finish'));
    });

    it('asks for a structured answer as the provider’s JSON response format, with the turn’s schema', async () => {
      const { model, server } = await modelFor([{ kind: 'stream', text: ['{"city":"Paris"}'] }]);
      const schema = {
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
        additionalProperties: false,
      };
      // Without tools (with them a compatible server gets none: test/provider/structured-output-*).
      await streamResponse({ model, request: wireRequest({ output: { schema, name: 'city' }, tools: [] }) });
      const format = (server.requests[0]?.body as { response_format?: unknown } | undefined)?.response_format;
      // OpenAI's send the schema (strict: it fits); the compatible one asks for JSON, the schema in words.
      if (provider === 'openai-compatible') expect(format).toEqual({ type: 'json_object' });
      else
        expect(format).toEqual({
          type: 'json_schema',
          json_schema: { name: 'city', schema, strict: true },
        });
    });

    it('sends the idempotency key as a header and the transcript as chat messages, tool results by call id', async () => {
      const { model, server } = await modelFor([{ kind: 'stream', text: ['ok'] }]);
      await streamResponse({
        model,
        request: wireRequest({
          messages: transcriptWithToolResult,
          idempotencyKey: 't1/model/1',
          responseIndex: 1,
        }),
      });
      expect(server.requests).toHaveLength(1);
      const [request] = server.requests;
      expect(request?.headers['idempotency-key']).toBe('t1/model/1');
      expect(request?.headers.authorization).toBe(`Bearer ${apiKey}`);
      expect(request?.body).toMatchObject({
        model: 'gpt-4.1-mini',
        stream: true,
        stream_options: { include_usage: true },
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'user' },
          {
            role: 'assistant',
            content: 'Reading it.',
            tool_calls: [
              {
                id: 'call_1',
                type: 'function',
                function: { name: 'read_file', arguments: '{"path":"a.txt"}' },
              },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: '{"text":"hello"}' },
        ],
        tools: [
          {
            type: 'function',
            function: { name: 'read_file', description: 'Reads a file', parameters: { type: 'object' } },
          },
        ],
      });
    });

    it('turns 429 with retry-after into a retryable error that says how long to wait, without retrying itself', async () => {
      const { model, server } = await modelFor([
        openAiErrorReply({
          status: 429,
          message: 'Rate limit reached',
          type: 'rate_limit',
          headers: { 'retry-after': '3' },
        }),
      ]);
      const error = await failure(model);
      expect(error).toMatchObject({ retryable: true, retryAfterMs: 3000 });
      expect(error.message).toContain('HTTP 429');
      expect(error.message).toContain('Rate limit reached');
      expect(server.requests).toHaveLength(1);
    });

    it('treats a 500 as retryable', async () => {
      const { model } = await modelFor([
        openAiErrorReply({ status: 500, message: 'upstream exploded', type: 'server_error' }),
      ]);
      expect(await failure(model)).toMatchObject({ retryable: true });
    });

    it('treats a 400 as final, naming the status and the provider’s message but not the key', async () => {
      const { model } = await modelFor([
        openAiErrorReply({ status: 400, message: "Invalid value for 'tools[0]'" }),
      ]);
      const error = await failure(model);
      expect(error.retryable).toBe(false);
      expect(error.message).toContain('HTTP 400 Bad Request');
      expect(error.message).toContain("Invalid value for 'tools[0]'");
      expect(error.message).not.toContain(apiKey);
    });

    it('keeps a complete call when the connection drops mid-response, and reports the stream broken', async () => {
      const { model } = await modelFor([
        {
          kind: 'stream',
          toolCalls: [
            { id: 'call_a', name: 'read_file', argumentChunks: ['{"path":', ' "a.txt"}'] },
            { id: 'call_b', name: 'read_file', argumentChunks: ['{"path":', ' "b.t'] },
          ],
          truncateAfterChunks: 5,
        },
      ]);
      const { collected, broken } = await streamResponse({ model, request: wireRequest() });
      expect(broken).toMatchObject({ retryable: true });
      expect(broken?.message).toContain('connection lost');
      expect(collected.calls).toEqual([
        { toolCallId: 'call_a', toolName: 'read_file', input: '{"path": "a.txt"}' },
      ]);
      const response = buildModelResponse({
        collected,
        registry: wireRegistry,
        responseIndex: 0,
        partialReason: broken?.message,
      });
      expect(response.calls).toHaveLength(1);
      expect(response.message.partial?.reason).toContain('connection lost');
    });

    it('retries a garbage chunk before any tool call, naming what the provider sent', async () => {
      const { model } = await modelFor([
        { kind: 'stream', text: ['Hel', 'lo'], inject: [{ afterChunks: 2, data: '{"choices": [oops' }] },
      ]);
      const error = await failure(model);
      expect(error.retryable).toBe(true);
      expect(error.message).toContain('{"choices": [oops');
    });

    if (provider === 'openai') {
      it('retries an in-stream error frame of a kind only the provider knows to be transient', async () => {
        const frame = {
          error: { message: 'The server is overloaded', type: null, code: 'server_is_overloaded' },
        };
        const { model } = await modelFor([
          { kind: 'stream', text: ['Hel', 'lo'], inject: [{ afterChunks: 2, data: JSON.stringify(frame) }] },
        ]);
        const error = await failure(model);
        expect(error.retryable).toBe(true);
        expect(error.message).toContain('The server is overloaded');
      });
    }

    it('cuts a huge garbage chunk short in the error message', async () => {
      const garbage = `<html>${'x'.repeat(100_000)}</html>`;
      const { model } = await modelFor([
        { kind: 'stream', text: ['a'], inject: [{ afterChunks: 1, data: garbage }] },
      ]);
      const error = await failure(model);
      expect(error.retryable).toBe(true);
      expect(error.message).toContain('<html>xxx');
      expect(error.message.length).toBeLessThan(1_000);
    });

    it('retries a chunk that is JSON of the wrong shape, naming it', async () => {
      const { model } = await modelFor([
        { kind: 'stream', text: ['a'], inject: [{ afterChunks: 1, data: '{"choices": "not a list"}' }] },
      ]);
      const error = await failure(model);
      expect(error.retryable).toBe(true);
      expect(error.message).toContain('not a list');
    });

    it('retries a stream that ends cleanly without a finish reason or [DONE], saying how far it got', async () => {
      const { model } = await modelFor([{ kind: 'stream', text: ['Hel', 'lo'], endWithoutFinish: true }]);
      const error = await failure(model);
      expect(error.retryable).toBe(true);
      expect(error.message).toMatch(/ended without a finish reason after 2 parts/);
    });

    it('keeps a complete call when a garbage chunk follows it, and reports the stream broken', async () => {
      const { model } = await modelFor([
        {
          kind: 'stream',
          toolCalls: [{ id: 'call_a', name: 'read_file', argumentChunks: ['{"path":', ' "a.txt"}'] }],
          inject: [{ afterChunks: 3, data: 'not json at all' }],
        },
      ]);
      const { collected, broken } = await streamResponse({ model, request: wireRequest() });
      expect(broken).toMatchObject({ retryable: true, message: expect.stringContaining('not json at all') });
      expect(collected.calls).toEqual([
        { toolCallId: 'call_a', toolName: 'read_file', input: '{"path": "a.txt"}' },
      ]);
    });

    it('drops a call cut off mid-arguments by a clean end, as it would after a reset at the same point', async () => {
      const cutOff = (ending: Partial<OpenAiChatReply>) =>
        ({
          kind: 'stream',
          toolCalls: [
            { id: 'call_a', name: 'read_file', argumentChunks: ['{"path":', ' "a.txt"}'] },
            { id: 'call_b', name: 'read_file', argumentChunks: ['{"path":', ' "b.t'] },
          ],
          ...ending,
        }) as OpenAiChatReply;
      const { model } = await modelFor([
        cutOff({ endWithoutFinish: true }),
        cutOff({ truncateAfterChunks: 5 }),
      ]);
      const clean = await streamResponse({ model, request: wireRequest() });
      const reset = await streamResponse({ model, request: wireRequest() });
      expect(clean.broken).toMatchObject({ retryable: true });
      expect(clean.broken?.message).toMatch(/ended without a finish reason after 1 part\b/);
      expect(reset.broken).toMatchObject({ retryable: true });
      expect(clean.collected.calls).toEqual(reset.collected.calls);
      expect(clean.collected.calls.map((c) => c.toolCallId)).toEqual(['call_a']);
    });

    it('treats a 503 with retry-after-ms as retryable after that long, and a reset before any chunk as retryable', async () => {
      const { model } = await modelFor([
        openAiErrorReply({
          status: 503,
          message: 'overloaded',
          type: 'server_error',
          headers: { 'retry-after-ms': '250' },
        }),
        { kind: 'stream', text: ['a'], truncateAfterChunks: 0 },
      ]);
      expect(await failure(model)).toMatchObject({ retryable: true, retryAfterMs: 250 });
      expect(await failure(model)).toMatchObject({ retryable: true });
    });

    it('passes on every call of a response that repeats an id, each under an id of its own', async () => {
      const { model } = await modelFor([
        {
          kind: 'stream',
          toolCalls: [
            { id: 'call_a', name: 'read_file', argumentChunks: ['{"path":', ' "a.txt"}'] },
            { id: 'call_a', name: 'read_file', argumentChunks: ['{"path":', ' "b.txt"}'] },
            { id: 'call_a', name: 'read_file', argumentChunks: ['[1]'] },
          ],
        },
      ]);
      const { collected } = await streamResponse({ model, request: wireRequest() });
      expect(collected.calls.map((c) => c.input)).toEqual(['{"path": "a.txt"}', '{"path": "b.txt"}', '[1]']);
      expect(new Set(collected.calls.map((c) => c.toolCallId)).size).toBe(3);
      const response = buildModelResponse({ collected, registry: wireRegistry, responseIndex: 0 });
      expect(response.calls.map((c) => c.rejection?.errorType)).toEqual([
        undefined,
        undefined,
        'invalid-arguments',
      ]);
    });

    it('passes on a call whose arguments are not JSON, which the registry then rejects as invalid arguments', async () => {
      const { model } = await modelFor([
        {
          kind: 'stream',
          toolCalls: [{ id: 'call_a', name: 'read_file', argumentChunks: ['{"path": ', 'a.txt}'] }],
        },
      ]);
      const { collected, broken } = await streamResponse({ model, request: wireRequest() });
      expect(broken).toBeUndefined();
      expect(collected.calls).toEqual([
        { toolCallId: 'call_a', toolName: 'read_file', input: '{"path": a.txt}' },
      ]);
      const [call] = buildModelResponse({ collected, registry: wireRegistry, responseIndex: 0 }).calls;
      expect(call?.rejection?.errorType).toBe('invalid-arguments');
      expect(call?.input).toBe('{"path": a.txt}');
    });

    it('stops with a non-retryable abort when the request is cancelled mid-stream', async () => {
      const { model } = await modelFor([{ kind: 'stream', text: ['a', 'b', 'c'], chunkDelayMs: 150 }]);
      const controller = new AbortController();
      const error: unknown = await streamResponse({
        model,
        request: wireRequest({ signal: controller.signal }),
        onPart: () => controller.abort(),
      }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ModelError);
      expect(error).toMatchObject({ retryable: false, message: expect.stringContaining('aborted') });
    });

    if (provider === 'openai-compatible') {
      it('streams reasoning_content as reasoning deltas before the text', async () => {
        const { model } = await modelFor([{ kind: 'stream', reasoning: ['think', 'ing'], text: ['done'] }]);
        const { collected } = await streamResponse({ model, request: wireRequest() });
        expect(collected.parts).toEqual([
          { type: 'reasoning', text: 'thinking' },
          { type: 'text', text: 'done' },
        ]);
      });
    }
  },
);

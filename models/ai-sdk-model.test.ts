import {
  APICallError,
  type LanguageModelV3,
  type LanguageModelV3CallOptions,
  type LanguageModelV4,
  type LanguageModelV4CallOptions,
} from '@ai-sdk/provider';
import { ModelError, type ModelStreamPart } from '../core';
import { wireRequest } from '../test/support/models/wire-test-kit';
import { aiSdkModel } from './ai-sdk-model';
import type { SupportedLanguageModel } from './supported-language-model';

const usage = {
  inputTokens: { total: 30, noCache: 30, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 8, text: 8, reasoning: undefined },
};
const stopped = { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage };

/**
 * A provider model of the given spec (v4 unless said) that streams the given parts and records the
 * options it was called with.
 */
function fakeModel(
  parts: readonly unknown[],
  { spec = 'v4', onCancel, fail }: { spec?: 'v4' | 'v3'; onCancel?: () => void; fail?: unknown } = {},
) {
  const calls: (LanguageModelV4CallOptions | LanguageModelV3CallOptions)[] = [];
  const doStream = async <Part>(options: LanguageModelV4CallOptions | LanguageModelV3CallOptions) => {
    calls.push(options);
    if (fail !== undefined) throw fail;
    let next = 0;
    const stream = new ReadableStream<Part>({
      pull(controller) {
        if (next < parts.length) controller.enqueue(parts[next++] as Part);
        else controller.close();
      },
      cancel: () => onCancel?.(),
    });
    return { stream };
  };
  const common = {
    provider: 'fake.chat',
    modelId: 'fake-1',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('doGenerate is not used')),
  };
  const v4: LanguageModelV4 = { ...common, specificationVersion: 'v4', doStream };
  const v3: LanguageModelV3 = { ...common, specificationVersion: 'v3', doStream };
  const model: SupportedLanguageModel = spec === 'v4' ? v4 : v3;
  return { model, calls };
}

async function collect(stream: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const parts: ModelStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe('aiSdkModel', () => {
  it.each(['v4', 'v3'] as const)(
    "maps spec %s stream parts to ours (the response's id as its receipt, blocks with their provider metadata), dropping the ones that carry nothing we record",
    async (spec) => {
      const signed = { fake: { signature: 'sig' } };
      const { model } = fakeModel(
        [
          { type: 'stream-start', warnings: [] },
          ...(spec === 'v4' ? [{ type: 'ping' }, { type: 'custom', kind: 'fake.note' }] : []),
          { type: 'response-metadata', id: 'r1', modelId: 'fake-1' },
          { type: 'reasoning-start', id: 'r' },
          { type: 'reasoning-delta', id: 'r', delta: 'plan' },
          { type: 'reasoning-delta', id: 'r', delta: '', providerMetadata: signed },
          { type: 'reasoning-end', id: 'r' },
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: '' },
          { type: 'text-delta', id: 't', delta: 'Hi' },
          { type: 'text-end', id: 't', providerMetadata: { fake: { itemId: 'msg_1' } } },
          { type: 'source', sourceType: 'url', id: 's', url: 'https://example.com' },
          { type: 'tool-input-start', id: 'c1', toolName: 'read_file' },
          { type: 'tool-input-delta', id: 'c1', delta: '{"path":' },
          { type: 'tool-input-delta', id: 'c1', delta: '"a"}' },
          { type: 'tool-input-end', id: 'c1' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: '{"path":"a"}' },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'read_file', input: '{"path":"b"}' },
          {
            type: 'tool-call',
            toolCallId: 'ws',
            toolName: 'web_search',
            input: '{}',
            providerExecuted: true,
          },
          { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
        ],
        { spec },
      );
      expect(await collect(aiSdkModel({ name: 'm', model }).stream(wireRequest()))).toEqual([
        { type: 'response-id', id: 'r1' },
        { type: 'reasoning-start', id: 'r' },
        { type: 'reasoning-delta', id: 'r', delta: 'plan' },
        { type: 'reasoning-delta', id: 'r', delta: '', providerMetadata: signed },
        { type: 'reasoning-end', id: 'r' },
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Hi' },
        { type: 'text-end', id: 't', providerMetadata: { fake: { itemId: 'msg_1' } } },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: '{"path":"a"}' },
        { type: 'tool-call', toolCallId: 'c2', toolName: 'read_file', input: '{"path":"b"}' },
        { type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 30, outputTokens: 8 } },
      ]);
    },
  );

  it('accepts usage as plain numbers and a finish reason as a string, counting missing tokens as 0', async () => {
    const { model } = fakeModel([
      { type: 'finish', finishReason: 'stop', usage: { inputTokens: 5, outputTokens: undefined } },
    ]);
    expect(await collect(aiSdkModel({ name: 'm', model }).stream(wireRequest()))).toEqual([
      { type: 'finish', finishReason: 'stop', usage: { inputTokens: 5, outputTokens: 0 } },
    ]);
  });

  it.each(['v4', 'v3'] as const)(
    'calls doStream of a spec %s model once with the converted prompt, the tools, the idempotency header and the settings',
    async (spec) => {
      const { model, calls } = fakeModel([stopped], { spec });
      const controller = new AbortController();
      await collect(
        aiSdkModel({
          name: 'm',
          model,
          maxOutputTokens: 256,
          temperature: 0,
          providerOptions: { fake: { x: 1 } },
        }).stream(wireRequest({ signal: controller.signal, idempotencyKey: 't1/model/4' })),
      );
      expect(calls).toHaveLength(1);
      expect(calls[0]).toEqual({
        prompt: [{ role: 'user', content: [{ type: 'text', text: 'Read a.txt' }] }],
        tools: [
          expect.objectContaining({ type: 'function', name: 'read_file', description: 'Reads a file' }),
        ],
        abortSignal: controller.signal,
        headers: { 'Idempotency-Key': 't1/model/4' },
        providerOptions: { fake: { x: 1 } },
        maxOutputTokens: 256,
        temperature: 0,
      });
    },
  );

  it('offers no tools when the request has none', async () => {
    const { model, calls } = fakeModel([stopped]);
    await collect(aiSdkModel({ name: 'm', model }).stream(wireRequest({ tools: [] })));
    expect(calls[0]).not.toHaveProperty('tools');
  });

  it('throws an error part as a classified ModelError', async () => {
    const { model } = fakeModel([
      { type: 'text-delta', id: 't', delta: 'par' },
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    ]);
    const parts: ModelStreamPart[] = [];
    const error: unknown = await (async () => {
      for await (const part of aiSdkModel({ name: 'm', model }).stream(wireRequest())) parts.push(part);
    })().catch((e: unknown) => e);
    expect(parts).toEqual([{ type: 'text-delta', id: 't', delta: 'par' }]);
    expect(ModelError.isInstance(error) && [error.retryable, error.message]).toEqual([
      true,
      'fake.chat stream error overloaded_error after 1 part: Overloaded (transient)',
    ]);
  });

  it('retries a stream that closes without a finish part, or with one that carries no reason, saying how far it got', async () => {
    const noFinish = fakeModel([{ type: 'text-delta', id: 't', delta: 'par' }]).model;
    await expect(
      collect(aiSdkModel({ name: 'm', model: noFinish }).stream(wireRequest())),
    ).rejects.toMatchObject({
      retryable: true,
      message: 'fake.chat stream ended without a finish reason after 1 part (transient)',
    });
    const noReason = fakeModel([
      { type: 'finish', finishReason: { unified: 'other', raw: undefined }, usage },
    ]).model;
    await expect(
      collect(aiSdkModel({ name: 'm', model: noReason }).stream(wireRequest())),
    ).rejects.toMatchObject({
      retryable: true,
      message: 'fake.chat stream ended without a finish reason after 0 parts (transient)',
    });
  });

  it('retries a stream whose finish says it was interrupted (AI SDK 7 providers, when the completion signal never came)', async () => {
    const interrupted = fakeModel([
      { type: 'text-delta', id: 't', delta: 'par' },
      { type: 'finish', finishReason: { unified: 'interrupted', raw: undefined }, usage },
    ]).model;
    await expect(
      collect(aiSdkModel({ name: 'm', model: interrupted }).stream(wireRequest())),
    ).rejects.toMatchObject({
      retryable: true,
      message: 'fake.chat stream ended without a finish reason after 1 part (transient)',
    });
  });

  it('refuses a model of another LanguageModel spec when it is handed over, naming the supported ones', () => {
    const { model } = fakeModel([stopped]);
    const v2 = { ...model, specificationVersion: 'v2' } as const;
    // @ts-expect-error the types refuse a v2 model too; this is what a JavaScript caller or a cast gets.
    expect(() => aiSdkModel({ name: 'm', model: v2 })).toThrow(
      'fake.chat model "fake-1" implements AI SDK LanguageModel specification "v2"; supported are "v4" (AI SDK 7 providers: @ai-sdk/openai 4.x, @ai-sdk/anthropic 4.x, @ai-sdk/openai-compatible 3.x) and "v3" (AI SDK 6 providers: @ai-sdk/openai 3.x, @ai-sdk/anthropic 3.x, @ai-sdk/openai-compatible 2.x); install a provider package of one of those majors',
    );
  });

  it('holds a call the provider completed with arguments that are not JSON until the finish, and drops it when none comes', async () => {
    const call = { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: '{"path": "a.t' };
    const finished = fakeModel([call, stopped]).model;
    expect(await collect(aiSdkModel({ name: 'm', model: finished }).stream(wireRequest()))).toEqual([
      { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: '{"path": "a.t' },
      { type: 'finish', finishReason: 'stop', usage: { inputTokens: 30, outputTokens: 8 } },
    ]);
    const cutOff = fakeModel([call]).model;
    const parts: ModelStreamPart[] = [];
    const error: unknown = await (async () => {
      for await (const part of aiSdkModel({ name: 'm', model: cutOff }).stream(wireRequest()))
        parts.push(part);
    })().catch((e: unknown) => e);
    expect(parts).toEqual([]);
    expect(error).toMatchObject({ retryable: true });
  });

  it('classifies a request that fails before streaming', async () => {
    const { model } = fakeModel([], {
      fail: new APICallError({ message: 'nope', url: 'u', requestBodyValues: {}, statusCode: 401 }),
    });
    await expect(collect(aiSdkModel({ name: 'm', model }).stream(wireRequest()))).rejects.toMatchObject({
      retryable: false,
      message: expect.stringContaining('HTTP 401'),
    });
  });

  it('cancels the provider stream when the consumer stops early', async () => {
    let cancelled = false;
    const { model } = fakeModel(
      [
        { type: 'text-delta', id: 't', delta: 'a' },
        { type: 'text-delta', id: 't', delta: 'b' },
      ],
      {
        onCancel: () => {
          cancelled = true;
        },
      },
    );
    for await (const part of aiSdkModel({ name: 'm', model }).stream(wireRequest())) {
      expect(part).toEqual({ type: 'text-delta', id: 't', delta: 'a' });
      break;
    }
    expect(cancelled).toBe(true);
  });
});

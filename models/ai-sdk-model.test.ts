import {
  APICallError,
  type LanguageModelV3,
  type LanguageModelV3CallOptions,
  type LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import { ModelError, type ModelStreamPart } from '../core';
import { wireRequest } from '../test/support/models/wire-test-kit';
import { aiSdkModel } from './ai-sdk-model';

const v3Usage = {
  inputTokens: { total: 30, noCache: 30, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 8, text: 8, reasoning: undefined },
};
const stopped = { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: v3Usage };

/** A provider model that streams the given parts and records the options it was called with. */
function fakeModel(parts: readonly unknown[], onCancel?: () => void) {
  const calls: LanguageModelV3CallOptions[] = [];
  const model: LanguageModelV3 = {
    specificationVersion: 'v3',
    provider: 'fake.chat',
    modelId: 'fake-1',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('doGenerate is not used')),
    doStream: async (options) => {
      calls.push(options);
      let next = 0;
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        pull(controller) {
          if (next < parts.length) controller.enqueue(parts[next++] as LanguageModelV3StreamPart);
          else controller.close();
        },
        cancel: () => onCancel?.(),
      });
      return { stream };
    },
  };
  return { model, calls };
}

async function collect(stream: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const parts: ModelStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe('aiSdkModel', () => {
  it('maps AI SDK stream parts to ours, dropping the ones that carry nothing we record', async () => {
    const { model } = fakeModel([
      { type: 'stream-start', warnings: [] },
      { type: 'response-metadata', id: 'r1', modelId: 'fake-1' },
      { type: 'reasoning-start', id: 'r' },
      { type: 'reasoning-delta', id: 'r', delta: 'plan' },
      { type: 'reasoning-end', id: 'r' },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: '' },
      { type: 'text-delta', id: 't', delta: 'Hi' },
      { type: 'text-end', id: 't' },
      { type: 'source', sourceType: 'url', id: 's', url: 'https://example.com' },
      { type: 'tool-input-start', id: 'c1', toolName: 'read_file' },
      { type: 'tool-input-delta', id: 'c1', delta: '{"path":' },
      { type: 'tool-input-delta', id: 'c1', delta: '"a"}' },
      { type: 'tool-input-end', id: 'c1' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: '{"path":"a"}' },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'read_file', input: '{"path":"b"}' },
      { type: 'tool-call', toolCallId: 'ws', toolName: 'web_search', input: '{}', providerExecuted: true },
      { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: v3Usage },
    ]);
    expect(await collect(aiSdkModel({ name: 'm', model }).stream(wireRequest()))).toEqual([
      { type: 'reasoning-delta', delta: 'plan' },
      { type: 'text-delta', delta: 'Hi' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: '{"path":"a"}' },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'read_file', input: '{"path":"b"}' },
      { type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 30, outputTokens: 8 } },
    ]);
  });

  it('accepts usage as plain numbers and a finish reason as a string, counting missing tokens as 0', async () => {
    const { model } = fakeModel([
      { type: 'finish', finishReason: 'stop', usage: { inputTokens: 5, outputTokens: undefined } },
    ]);
    expect(await collect(aiSdkModel({ name: 'm', model }).stream(wireRequest()))).toEqual([
      { type: 'finish', finishReason: 'stop', usage: { inputTokens: 5, outputTokens: 0 } },
    ]);
  });

  it('calls doStream once with the converted prompt, the tools, the idempotency header and the settings', async () => {
    const { model, calls } = fakeModel([stopped]);
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
      tools: [expect.objectContaining({ type: 'function', name: 'read_file', description: 'Reads a file' })],
      abortSignal: controller.signal,
      headers: { 'Idempotency-Key': 't1/model/4' },
      providerOptions: { fake: { x: 1 } },
      maxOutputTokens: 256,
      temperature: 0,
    });
  });

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
    expect(parts).toEqual([{ type: 'text-delta', delta: 'par' }]);
    expect(ModelError.isInstance(error) && [error.retryable, error.message]).toEqual([
      true,
      'fake.chat stream error (overloaded_error): Overloaded',
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
      { type: 'finish', finishReason: { unified: 'other', raw: undefined }, usage: v3Usage },
    ]).model;
    await expect(
      collect(aiSdkModel({ name: 'm', model: noReason }).stream(wireRequest())),
    ).rejects.toMatchObject({
      retryable: true,
      message: 'fake.chat stream ended without a finish reason after 0 parts (transient)',
    });
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
    const { model } = fakeModel([]);
    model.doStream = () =>
      Promise.reject(new APICallError({ message: 'nope', url: 'u', requestBodyValues: {}, statusCode: 401 }));
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
      () => {
        cancelled = true;
      },
    );
    for await (const part of aiSdkModel({ name: 'm', model }).stream(wireRequest())) {
      expect(part).toEqual({ type: 'text-delta', delta: 'a' });
      break;
    }
    expect(cancelled).toBe(true);
  });
});

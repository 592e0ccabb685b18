import type { ModelRequest, ModelStreamPart, TurnModel } from '../core';
import { parsePrometheusText, sampleValue } from '../test/support/prometheus-text';
import { TurnMetrics } from './turn-metrics';

const request = (signal?: AbortSignal): ModelRequest => ({
  turnId: 't',
  responseIndex: 0,
  messages: [],
  tools: [],
  idempotencyKey: 't/model/0',
  ...(signal ? { signal } : {}),
});

function modelOf(parts: ModelStreamPart[]): TurnModel {
  return {
    name: 'm',
    async *stream() {
      for (const part of parts) yield part;
    },
  };
}

async function requests(metrics: TurnMetrics, outcome: string) {
  const samples = parsePrometheusText(await metrics.registry.metrics());
  return sampleValue(samples, 'durable_turns_model_requests_total', { model: 'm', outcome });
}

test('passes every part through unchanged, and counts a finished stream as ok with its tokens', async () => {
  const metrics = new TurnMetrics();
  const parts: ModelStreamPart[] = [
    { type: 'text-delta', delta: 'hi' },
    { type: 'finish', finishReason: 'stop', usage: { inputTokens: 5, outputTokens: 1 } },
  ];
  const seen: ModelStreamPart[] = [];
  for await (const part of metrics.model(modelOf(parts)).stream(request())) seen.push(part);
  expect(seen).toEqual(parts);
  expect(await requests(metrics, 'ok')).toBe(1);
  const samples = parsePrometheusText(await metrics.registry.metrics());
  expect(sampleValue(samples, 'durable_turns_model_tokens_total', { model: 'm', type: 'input' })).toBe(5);
});

test('a stream that ends without a finish counts as an error', async () => {
  const metrics = new TurnMetrics();
  for await (const _ of metrics.model(modelOf([{ type: 'text-delta', delta: 'cut' }])).stream(request())) {
    // read to the end
  }
  expect(await requests(metrics, 'error')).toBe(1);
  expect(await requests(metrics, 'ok')).toBeUndefined();
});

test('a reader that stops after its request was aborted counts it as cancelled, once', async () => {
  const metrics = new TurnMetrics();
  const abort = new AbortController();
  const parts: ModelStreamPart[] = [
    { type: 'text-delta', delta: 'a' },
    { type: 'text-delta', delta: 'b' },
  ];
  for await (const _ of metrics.model(modelOf(parts)).stream(request(abort.signal))) {
    abort.abort();
    break;
  }
  expect(await requests(metrics, 'cancelled')).toBe(1);
  expect(await requests(metrics, 'error')).toBeUndefined();
});

test('a model that throws counts as an error and the error reaches the reader', async () => {
  const metrics = new TurnMetrics();
  const failing: TurnModel = {
    name: 'm',
    // biome-ignore lint/correctness/useYield: it fails before its first part
    async *stream() {
      throw new Error('503');
    },
  };
  const read = async () => {
    for await (const _ of metrics.model(failing).stream(request())) {
      // nothing arrives
    }
  };
  await expect(read()).rejects.toThrow('503');
  expect(await requests(metrics, 'error')).toBe(1);
});

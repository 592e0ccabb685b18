import { z } from 'zod';
import { defineTool, ModelError, ToolHealthRegistry, type TurnModel } from '../core';
import { InProcessExecutor, MemoryJournal } from '../executors';
import { scriptedModel } from '../models';
import { gatedScript, gatedTool } from '../test/support/executors/resume-fixtures';
import {
  labelValues,
  type PromSample,
  parsePrometheusText,
  sampleValue,
} from '../test/support/prometheus-text';
import { TurnMetrics } from './turn-metrics';

/** Fails its first attempt of each call, then answers: one retried failure per call. */
function flakyTool() {
  const seen = new Set<string>();
  return defineTool({
    name: 'flaky',
    description: 'Fails once per call, then works',
    input: z.object({}),
    retry: { maxAttempts: 2, initialDelayMs: 0 },
    execute: (_args, ctx) => {
      if (!seen.has(ctx.toolCallId)) {
        seen.add(ctx.toolCallId);
        throw new Error('first attempt fails');
      }
      return 'worked';
    },
  });
}

const echo = defineTool({
  name: 'echo',
  description: 'Answers with its argument',
  input: z.object({ n: z.number() }),
  concurrencySafe: true,
  execute: ({ n }) => `echo ${n}`,
});

const deploy = defineTool({
  name: 'deploy',
  description: 'Needs a person to say yes',
  input: z.object({}),
  requiresApproval: true,
  execute: () => 'deployed',
});

async function scrape(metrics: TurnMetrics): Promise<PromSample[]> {
  return parsePrometheusText(await metrics.registry.metrics());
}

test('an in-process turn counts its tool attempts by tool and outcome, its model requests and tokens by model, and itself by status', async () => {
  const metrics = new TurnMetrics();
  const model = scriptedModel(
    [
      {
        toolCalls: [
          { name: 'flaky', args: {} },
          { name: 'echo', args: { n: 1 } },
          { name: 'echo', args: { n: 2 } },
          { name: 'invented-by-the-model', args: {} },
        ],
        usage: { inputTokens: 100, outputTokens: 7 },
        failFirst: 1,
      },
      { text: 'done', usage: { inputTokens: 120, outputTokens: 3 } },
    ],
    'model-a',
  );
  const executor = new InProcessExecutor({
    tools: [flakyTool(), echo],
    model: metrics.model(model),
    observers: [metrics.observer],
    modelRetry: { initialDelayMs: 1 },
  });
  metrics.watchHealth({ health: executor.health });

  const result = await executor.runTurn({ turnId: 'counted', input: 'go' });
  expect(result.status).toBe('completed');

  const samples = await scrape(metrics);
  const attempts = (tool: string, outcome: string) =>
    sampleValue(samples, 'durable_turns_tool_attempts_total', { tool, outcome });
  expect(attempts('flaky', 'error')).toBe(1);
  expect(attempts('flaky', 'ok')).toBe(1);
  expect(attempts('echo', 'ok')).toBe(2);
  // The model's invented name is not a series of its own (the call fails before any attempt).
  expect(labelValues(samples, 'durable_turns_tool_attempts_total', 'tool')).not.toContain(
    'invented-by-the-model',
  );
  const durations = (tool: string) =>
    sampleValue(samples, 'durable_turns_tool_attempt_duration_seconds_count', { tool });
  expect(durations('flaky')).toBe(2);
  expect(durations('echo')).toBe(2);

  const requests = (outcome: string) =>
    sampleValue(samples, 'durable_turns_model_requests_total', { model: 'model-a', outcome });
  expect(requests('ok')).toBe(2);
  expect(requests('error')).toBe(1); // failFirst: the first request failed, transiently, and was retried
  expect(
    sampleValue(samples, 'durable_turns_model_request_duration_seconds_count', {
      model: 'model-a',
      outcome: 'ok',
    }),
  ).toBe(2);
  expect(sampleValue(samples, 'durable_turns_model_tokens_total', { model: 'model-a', type: 'input' })).toBe(
    220,
  );
  expect(sampleValue(samples, 'durable_turns_model_tokens_total', { model: 'model-a', type: 'output' })).toBe(
    10,
  );

  expect(sampleValue(samples, 'durable_turns_turns_started_total')).toBe(1);
  expect(sampleValue(samples, 'durable_turns_turns_ended_total', { status: 'completed' })).toBe(1);
  expect(sampleValue(samples, 'durable_turns_turn_duration_seconds_count', { status: 'completed' })).toBe(1);
  expect(sampleValue(samples, 'durable_turns_open_turns')).toBe(0);
  expect(sampleValue(samples, 'durable_turns_tool_circuit_state', { tool: 'flaky', state: 'closed' })).toBe(
    1,
  );
  expect(sampleValue(samples, 'durable_turns_tool_circuit_state', { tool: 'flaky', state: 'open' })).toBe(0);
});

test('a turn waiting for an approval is open and waiting until the approver answers', async () => {
  const metrics = new TurnMetrics();
  let answer: (decision: { approved: boolean }) => void = () => {};
  let asked: () => void = () => {};
  const approvalAsked = new Promise<void>((resolve) => {
    asked = resolve;
  });
  const executor = new InProcessExecutor({
    tools: [deploy],
    model: metrics.model(scriptedModel([{ toolCalls: [{ name: 'deploy', args: {} }] }, { text: 'ok' }])),
    observers: [metrics.observer],
    approver: () =>
      new Promise((resolve) => {
        answer = resolve;
        asked();
      }),
  });
  const running = executor.runTurn({ turnId: 'waits', input: 'deploy' });
  await approvalAsked;

  const waiting = await scrape(metrics);
  expect(sampleValue(waiting, 'durable_turns_open_turns')).toBe(1);
  expect(sampleValue(waiting, 'durable_turns_turns_waiting_for_approval')).toBe(1);
  expect(sampleValue(waiting, 'durable_turns_turns_started_total')).toBe(1);
  expect(sampleValue(waiting, 'durable_turns_turns_ended_total', { status: 'completed' })).toBeUndefined();

  answer({ approved: true });
  await running;
  const done = await scrape(metrics);
  expect(sampleValue(done, 'durable_turns_open_turns')).toBe(0);
  expect(sampleValue(done, 'durable_turns_turns_waiting_for_approval')).toBe(0);
  expect(sampleValue(done, 'durable_turns_turns_ended_total', { status: 'completed' })).toBe(1);
  expect(sampleValue(done, 'durable_turns_tool_attempts_total', { tool: 'deploy', outcome: 'ok' })).toBe(1);
});

test('a model request that fails for good counts as an error, and its turn as failed', async () => {
  const metrics = new TurnMetrics();
  const refusing: TurnModel = {
    name: 'model-b',
    // biome-ignore lint/correctness/useYield: a model that fails before its first part
    async *stream() {
      throw new ModelError('invalid api key', false);
    },
  };
  const executor = new InProcessExecutor({
    tools: [echo],
    model: metrics.model(refusing),
    observers: [metrics.observer],
  });
  const result = await executor.runTurn({ turnId: 'refused', input: 'go' });
  expect(result.status).toBe('failed');
  const samples = await scrape(metrics);
  expect(
    sampleValue(samples, 'durable_turns_model_requests_total', { model: 'model-b', outcome: 'error' }),
  ).toBe(1);
  expect(
    sampleValue(samples, 'durable_turns_model_requests_total', { model: 'model-b', outcome: 'ok' }),
  ).toBe(undefined);
  expect(sampleValue(samples, 'durable_turns_turns_ended_total', { status: 'failed' })).toBe(1);
});

test("a tool's open circuit reads 1 for open and 0 for the other states", async () => {
  let now = 1_000;
  const health = new ToolHealthRegistry({ now: () => now, failureThreshold: 2, coolDownMs: 500 });
  const metrics = new TurnMetrics();
  metrics.watchHealth({ health });
  health.record('search', 'failure', 5);
  health.record('search', 'timeout', 5);
  health.record('read', 'success', 1);
  const state = async (tool: string) => {
    const samples = await scrape(metrics);
    return Object.fromEntries(
      ['closed', 'open', 'half-open'].map((s) => [
        s,
        sampleValue(samples, 'durable_turns_tool_circuit_state', { tool, state: s }),
      ]),
    );
  };
  expect(await state('search')).toEqual({ closed: 0, open: 1, 'half-open': 0 });
  expect(await state('read')).toEqual({ closed: 1, open: 0, 'half-open': 0 });
  now += 500; // the cool-down is over: the next call is a probe
  expect(await state('search')).toEqual({ closed: 0, open: 0, 'half-open': 1 });
});

test('metrics live in a registry of their own, so two sets of them do not collide', async () => {
  const a = new TurnMetrics();
  const b = new TurnMetrics();
  a.recordTurnStarted();
  expect(sampleValue(await scrape(a), 'durable_turns_turns_started_total')).toBe(1);
  expect(sampleValue(await scrape(b), 'durable_turns_turns_started_total')).toBe(0);
});

test('an attempt of a tool this host does not have counts under one label for all such names', async () => {
  // On Temporal, a call prepared by a worker that has the tool may be run by one that does not.
  const metrics = new TurnMetrics();
  for (const toolName of ['made-up-1', 'made-up-2'])
    metrics.observer.onToolPost({
      turnId: 't',
      toolCallId: toolName,
      toolName,
      attempt: 1,
      args: {},
      durationMs: 0,
      isError: true,
      status: 'error',
      result: {
        status: 'error',
        content: 'unknown tool',
        errorType: 'unknown-tool',
        retryable: false,
        resultHash: 'h',
      },
    });
  const samples = await scrape(metrics);
  expect(labelValues(samples, 'durable_turns_tool_attempts_total', 'tool')).toEqual(['(unknown)']);
  expect(
    sampleValue(samples, 'durable_turns_tool_attempts_total', { tool: '(unknown)', outcome: 'error' }),
  ).toBe(2);
});

test('a turn resumed on this host is open from its resume on, though its start was seen by another', async () => {
  const journal = new MemoryJournal();
  const held = gatedTool();
  const first = new InProcessExecutor({
    tools: [held.tool],
    model: gatedScript(),
    journal,
    owner: 'lost-host',
  });
  const lost = first.runTurn({ turnId: 'resumed', input: 'go' }).catch(() => undefined);
  await held.started;

  const metrics = new TurnMetrics();
  const rerun = gatedTool();
  const second = new InProcessExecutor({
    tools: [rerun.tool],
    model: metrics.model(gatedScript()),
    observers: [metrics.observer],
    journal,
    owner: 'new-host',
  });
  const resumed = second.resumeTurn({ turnId: 'resumed', takeOver: true });
  try {
    // The lost attempt runs again here (the tool is retry-safe); while it runs, the turn is open here.
    await rerun.started;
    const running = await scrape(metrics);
    expect(sampleValue(running, 'durable_turns_open_turns')).toBe(1);
    expect(sampleValue(running, 'durable_turns_turns_started_total')).toBe(0);

    rerun.open();
    await expect(resumed).resolves.toMatchObject({ status: 'completed' });
    const done = await scrape(metrics);
    expect(sampleValue(done, 'durable_turns_open_turns')).toBe(0);
    expect(sampleValue(done, 'durable_turns_turns_ended_total', { status: 'completed' })).toBe(1);
    expect(
      sampleValue(done, 'durable_turns_tool_attempts_total', { tool: 'wait_for_gate', outcome: 'ok' }),
    ).toBe(1);
  } finally {
    // The first host's attempt ends too (its appends are refused: the turn is not its own any more).
    rerun.open();
    held.open();
    await lost;
  }
});

test('attempts of several tools, in any order, count under each tool and outcome at every scrape', async () => {
  const metrics = new TurnMetrics();
  const attempt = (toolName: string, ok: boolean) =>
    metrics.observer.onToolPost({
      turnId: 't',
      toolCallId: `${toolName}-${ok}`,
      toolName,
      attempt: 1,
      args: {},
      durationMs: ok ? 2 : 20,
      isError: !ok,
      status: ok ? 'ok' : 'error',
      result: ok
        ? { status: 'ok', content: 'fine', resultHash: 'h' }
        : { status: 'error', content: 'no', errorType: 'tool-error', retryable: true, resultHash: 'h' },
    });
  attempt('a', false);
  attempt('a', true);
  attempt('b', true);
  attempt('a', true);
  const first = await scrape(metrics);
  const count = (samples: PromSample[], tool: string, outcome: string) =>
    sampleValue(samples, 'durable_turns_tool_attempts_total', { tool, outcome });
  expect([count(first, 'a', 'ok'), count(first, 'a', 'error'), count(first, 'b', 'ok')]).toEqual([2, 1, 1]);
  expect(count(first, 'b', 'error')).toBeUndefined();
  expect(sampleValue(first, 'durable_turns_tool_attempt_duration_seconds_sum', { tool: 'a' })).toBeCloseTo(
    0.024,
  );

  attempt('b', false);
  const second = await scrape(metrics);
  expect([count(second, 'a', 'ok'), count(second, 'a', 'error')]).toEqual([2, 1]);
  expect([count(second, 'b', 'ok'), count(second, 'b', 'error')]).toEqual([1, 1]);
});

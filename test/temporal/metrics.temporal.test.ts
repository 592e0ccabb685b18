import path from 'node:path';
import { defineTool, scriptedModel } from 'durable-turns';
import { type MetricsServer, startMetricsServer, TurnMetrics } from 'durable-turns/metrics';
import { createTurnWorker } from 'durable-turns/worker';
import { z } from 'zod';
import { freePort } from '../../devserver/free-port';
import { stopProcessGroup } from '../../devserver/stop-process-group';
import { uniqueTurnId } from '../conformance/support';
import { labelValues, type PromSample, parsePrometheusText, sampleValue } from '../support/prometheus-text';
import { spawnSourceChild } from '../support/source-child';
import { testTemporal } from '../support/temporal-env';
import { TemporalKit } from './support/kit';
import { pollFor } from './support/poll';

const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

/** Fails the first attempt of each call, then works: one retried failure per call. */
const failedOnce = new Set<string>();
const flaky = defineTool({
  name: 'flaky',
  description: 'Fails once per call, then works',
  input: z.object({}),
  retry: { maxAttempts: 2, initialDelayMs: 10 },
  execute: (_args, ctx) => {
    if (!failedOnce.has(ctx.idempotencyKey)) {
      failedOnce.add(ctx.idempotencyKey);
      throw new Error('first attempt fails');
    }
    return 'worked';
  },
});

const echo = defineTool({
  name: 'echo',
  description: 'Answers with its text',
  input: z.object({ text: z.string() }),
  concurrencySafe: true,
  execute: ({ text }) => `echo: ${text}`,
});

const deploy = defineTool({
  name: 'deploy',
  description: 'Deploys (a person must approve it)',
  input: z.object({}),
  requiresApproval: true,
  execute: () => 'deployed',
});

async function scrape(server: MetricsServer): Promise<PromSample[]> {
  const response = await fetch(server.url);
  expect(response.status).toBe(200);
  return parsePrometheusText(await response.text());
}

test('a turn worker serves /metrics: tool attempts by tool and outcome, model requests and tokens by model, turns by status, and open turns and approvals while they wait', async () => {
  const taskQueue = kit.taskQueue('metrics');
  const retried = scriptedModel(
    [
      {
        toolCalls: [
          { id: 'f1', name: 'flaky', args: {} },
          { id: 'e1', name: 'echo', args: { text: 'a' } },
        ],
        usage: { inputTokens: 10, outputTokens: 1 },
      },
      { text: 'done', usage: { inputTokens: 20, outputTokens: 2 } },
    ],
    'model-retried',
  );
  const approved = scriptedModel(
    [
      { toolCalls: [{ id: 'd1', name: 'deploy', args: {} }], usage: { inputTokens: 30, outputTokens: 3 } },
      { text: 'deployed', usage: { inputTokens: 40, outputTokens: 4 } },
    ],
    'model-approved',
  );
  // Visibility counted afresh at every scrape, so polling sees it catch up.
  const metrics = new TurnMetrics({ visibilityMaxAgeMs: 0 });
  const worker = await createTurnWorker({
    connection: kit.native,
    namespace: kit.namespace,
    taskQueue,
    tools: [flaky, echo, deploy],
    models: [retried, approved],
    metrics,
    // Every workflow task replays the turn from its history: turns must still count once each.
    worker: { maxCachedWorkflows: 0 },
  });
  const server = await startMetricsServer({ registry: metrics.registry, port: 0 });
  const turnIds: string[] = [];
  try {
    await worker.runUntil(async () => {
      const client = kit.client(taskQueue);
      const first = uniqueTurnId('metrics-retried');
      turnIds.push(first);
      const done = await (
        await client.start({ turnId: first, input: 'go', model: 'model-retried' })
      ).result();
      expect(done.status).toBe('completed');

      const second = uniqueTurnId('metrics-approved');
      turnIds.push(second);
      const waiting = await client.start({ turnId: second, input: 'deploy', model: 'model-approved' });
      // During the turn: open and waiting, as Visibility catches up with the workflow.
      const during = await pollFor('the gauges to show the turn waiting for approval', async () => {
        const samples = await scrape(server);
        const open = sampleValue(samples, 'durable_turns_open_turns');
        const waitingNow = sampleValue(samples, 'durable_turns_turns_waiting_for_approval');
        return open === 1 && waitingNow === 1 ? samples : undefined;
      });
      expect(sampleValue(during, 'durable_turns_turns_started_total')).toBe(2);
      expect(sampleValue(during, 'durable_turns_turns_ended_total', { status: 'completed' })).toBe(1);
      expect(
        sampleValue(during, 'durable_turns_tool_attempts_total', { tool: 'deploy', outcome: 'ok' }),
      ).toBe(undefined);

      await waiting.approve('d1');
      expect((await waiting.result()).status).toBe('completed');
    });

    const after = await pollFor('the gauges to show no open turn', async () => {
      const samples = await scrape(server);
      const open = sampleValue(samples, 'durable_turns_open_turns');
      const waitingNow = sampleValue(samples, 'durable_turns_turns_waiting_for_approval');
      return open === 0 && waitingNow === 0 ? samples : undefined;
    });
    const attempts = (tool: string, outcome: string) =>
      sampleValue(after, 'durable_turns_tool_attempts_total', { tool, outcome });
    expect(attempts('flaky', 'error')).toBe(1);
    expect(attempts('flaky', 'ok')).toBe(1);
    expect(attempts('echo', 'ok')).toBe(1);
    expect(attempts('deploy', 'ok')).toBe(1);
    expect(labelValues(after, 'durable_turns_tool_attempts_total', 'tool')).toEqual([
      'deploy',
      'echo',
      'flaky',
    ]);
    expect(sampleValue(after, 'durable_turns_tool_attempt_duration_seconds_count', { tool: 'flaky' })).toBe(
      2,
    );
    expect(sampleValue(after, 'durable_turns_tool_circuit_state', { tool: 'flaky', state: 'closed' })).toBe(
      1,
    );

    for (const [model, input, output] of [
      ['model-retried', 30, 3],
      ['model-approved', 70, 7],
    ] as const) {
      expect(sampleValue(after, 'durable_turns_model_requests_total', { model, outcome: 'ok' })).toBe(2);
      expect(
        sampleValue(after, 'durable_turns_model_request_duration_seconds_count', { model, outcome: 'ok' }),
      ).toBe(2);
      expect(sampleValue(after, 'durable_turns_model_tokens_total', { model, type: 'input' })).toBe(input);
      expect(sampleValue(after, 'durable_turns_model_tokens_total', { model, type: 'output' })).toBe(output);
    }

    expect(sampleValue(after, 'durable_turns_turns_started_total')).toBe(2);
    expect(sampleValue(after, 'durable_turns_turns_ended_total', { status: 'completed' })).toBe(2);
    expect(sampleValue(after, 'durable_turns_turn_duration_seconds_count', { status: 'completed' })).toBe(2);
    expect(sampleValue(after, 'durable_turns_visibility_count_errors_total')).toBe(0);

    // Bounded labels: no turn id, call id or key is a label value anywhere.
    const labelled = after.flatMap((s) => Object.values(s.labels));
    for (const id of [...turnIds, 'f1', 'e1', 'd1'])
      expect(labelled.filter((value) => value.includes(id))).toEqual([]);
  } finally {
    await server.close();
  }
});

test('the worker process serves durable-turns metrics and the Temporal SDK worker metrics on the ports it is given', async () => {
  const [metricsPort, sdkPort] = [await freePort(), await freePort()];
  const taskQueue = kit.taskQueue('metrics-process');
  const { address, namespace } = testTemporal();
  const child = spawnSourceChild('cli/worker-main.ts', [], {
    cwd: path.join(__dirname, '../..'),
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      DURABLE_TURNS_TASK_QUEUE: taskQueue,
      DURABLE_TURNS_METRICS_PORT: String(metricsPort),
      DURABLE_TURNS_SDK_METRICS_PORT: String(sdkPort),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout?.on('data', (d) => {
    output += String(d);
  });
  child.stderr?.on('data', (d) => {
    output += String(d);
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    await pollFor(
      'the worker process to say where its metrics are',
      async () => {
        if (child.exitCode !== null) throw new Error(`the worker process exited: ${output}`);
        return output.includes('Temporal SDK metrics at') ? true : undefined;
      },
      // Its start is tsx compiling and, without a prebuilt bundle, bundling the workflow.
      { timeoutMs: 120_000 },
    );
    expect(output).toContain(`durable-turns metrics at http://127.0.0.1:${metricsPort}/metrics`);

    const turnId = uniqueTurnId('metrics-process');
    const result = await (
      await kit.client(taskQueue).start({ turnId, input: 'go', model: 'demo-scripted' })
    ).result();
    expect(result.status).toBe('completed');

    const ours = parsePrometheusText(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text());
    // The demo agent: five read/write attempts over three responses.
    expect(sampleValue(ours, 'durable_turns_tool_attempts_total', { tool: 'read_file', outcome: 'ok' })).toBe(
      4,
    );
    expect(
      sampleValue(ours, 'durable_turns_tool_attempts_total', { tool: 'write_file', outcome: 'ok' }),
    ).toBe(1);
    expect(sampleValue(ours, 'durable_turns_turns_ended_total', { status: 'completed' })).toBe(1);

    const sdk = await pollFor('the SDK exporter to report completed workflow tasks', async () => {
      const samples = parsePrometheusText(await (await fetch(`http://127.0.0.1:${sdkPort}/metrics`)).text());
      return samples.some((s) => s.name.startsWith('temporal_workflow_completed')) ? samples : undefined;
    });
    const names = new Set(sdk.map((s) => s.name));
    // Prometheus conventions: counters end in _total, durations are histograms in seconds.
    expect(
      [...names].filter((n) => n.startsWith('temporal_') && n.endsWith('_total')).length,
    ).toBeGreaterThan(0);
    expect([...names].some((n) => n.startsWith('temporal_') && n.endsWith('_seconds_bucket'))).toBe(true);
    expect(sdk.find((s) => s.name.startsWith('temporal_workflow_completed'))?.labels).toMatchObject({
      task_queue: taskQueue,
    });
  } finally {
    if (child.pid) await stopProcessGroup({ pid: child.pid, exited, timeoutMs: 0, log: () => {} });
  }
}, 180_000);

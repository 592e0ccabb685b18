import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { defineTool, scriptedModel } from 'durable-turns';
import { TurnClient } from 'durable-turns/client';
import { createTurnTracing, turnClientInterceptors } from 'durable-turns/tracing';
import { createTurnWorker } from 'durable-turns/worker';
import { z } from 'zod';
import { uniqueTurnId } from '../test/conformance/support';
import { suiteWorkflowBundle } from '../test/support/suite-workflow-bundle';
import { TemporalKit } from '../test/temporal/support/kit';
import { pollFor } from '../test/temporal/support/poll';
import { workerTracingOptions } from './worker-tracing-options';
import { tracingPatchId } from './workflow-interceptors';

const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

const secretArgument = 'argument-only-the-tool-should-see';
const secretOutput = 'output-only-the-model-should-see';

// Fails its first attempt, so the engine runs it again: two attempts of one call.
const flaky = defineTool({
  name: 'flaky',
  description: 'Fails once, then answers',
  input: z.object({ secret: z.string() }),
  retry: { maxAttempts: 2, initialDelayMs: 0 },
  execute: ({ secret }, ctx) => {
    if (ctx.attempt === 1) throw new Error('the first attempt fails');
    return `${secretOutput} for ${secret.length} characters`;
  },
});

/** Runs one turn (a call of `flaky`, then an answer) on a traced worker; every span it made. */
async function tracedTurn({
  captureMessageContent,
  clientTraced = true,
  continueAsNewAfterEvents,
}: {
  captureMessageContent: boolean;
  clientTraced?: boolean;
  continueAsNewAfterEvents?: number;
}) {
  const exporter = new InMemorySpanExporter();
  const tracing = createTurnTracing({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
    captureMessageContent,
  });
  const taskQueue = kit.taskQueue('traces');
  const model = scriptedModel([
    {
      toolCalls: [{ id: 'f1', name: 'flaky', args: { secret: secretArgument } }],
      usage: { inputTokens: 11, outputTokens: 7 },
    },
    { text: 'done', usage: { inputTokens: 23, outputTokens: 3 } },
  ]);
  const worker = await createTurnWorker({
    connection: kit.native,
    namespace: kit.namespace,
    taskQueue,
    tools: [flaky],
    models: [model],
    tracing,
  });
  const turnId = uniqueTurnId('traces');
  let history: temporal.api.history.v1.IHistory | undefined;
  await worker.runUntil(async () => {
    const client = new TurnClient({
      connection: kit.connection,
      namespace: kit.namespace,
      taskQueue,
      interceptors: clientTraced ? turnClientInterceptors({ tracing }) : {},
    });
    const turn = await client.start({
      turnId,
      input: 'use the flaky tool',
      model: 'scripted',
      ...(continueAsNewAfterEvents ? { continueAsNewAfterEvents } : {}),
    });
    // Reading it through the traced client (as a watcher does, many times) adds no trace.
    await turn.state();
    await client.client.workflow.getHandle(turnId).describe();
    expect((await turn.result()).status).toBe('completed');
    // Read back through a client of its own: the traced one would trace these calls too.
    const plain = new Client({ connection: kit.connection, namespace: kit.namespace }).workflow.getHandle(
      turnId,
    );
    history = await plain.fetchHistory();
    // The workflow's own span ends with it and leaves through the worker's sink after that task:
    // the last run's (a turn that continued as new had several).
    const { runId } = await plain.describe();
    if (clientTraced)
      await pollFor('the last run’s workflow span', async () =>
        exporter
          .getFinishedSpans()
          .some((s) => s.name === 'RunWorkflow:turnWorkflow' && s.attributes.temporalRunId === runId)
          ? true
          : undefined,
      );
  });
  const spans = exporter.getFinishedSpans();
  await tracing.shutdown(); // (which empties the exporter)
  return { spans, turnId, history };
}

/** The names from this span up to the root of its trace. */
function ancestry({ span, spans }: { span: ReadableSpan; spans: readonly ReadableSpan[] }): string[] {
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  const names: string[] = [];
  for (let at: ReadableSpan | undefined = span; at; ) {
    names.push(at.name);
    const parent = at.parentSpanContext?.spanId;
    at = parent ? byId.get(parent) : undefined;
    if (parent && !at) names.push(`(missing parent ${parent})`);
  }
  return names;
}

/** The details of each patch marker in a history, as text (they name the patch). */
function patchMarkers(history: temporal.api.history.v1.IHistory | undefined): string[] {
  return (history?.events ?? []).flatMap((e) => {
    const details = e.markerRecordedEventAttributes?.details;
    if (!details) return [];
    return [
      Object.values(details)
        .flatMap((p) => p.payloads ?? [])
        .map((p) => Buffer.from(p.data ?? []).toString())
        .join(' '),
    ];
  });
}

const contentAttributes = [
  'gen_ai.input.messages',
  'gen_ai.output.messages',
  'gen_ai.tool.call.arguments',
  'gen_ai.tool.call.result',
];

describe('a traced turn on Temporal', () => {
  test('is one trace from the client through the workflow to each model request and tool attempt, with GenAI attributes and no content', async () => {
    const { spans, turnId, history } = await tracedTurn({ captureMessageContent: false });

    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    const roots = spans.filter((s) => !s.parentSpanContext);
    expect(roots.map((s) => s.name)).toEqual(['StartWorkflow:turnWorkflow']);

    const chats = spans.filter((s) => s.name === 'chat scripted');
    expect(chats).toHaveLength(2);
    for (const chat of chats)
      expect(ancestry({ span: chat, spans })).toEqual([
        'chat scripted',
        'RunActivity:callModel',
        'StartActivity:callModel',
        'RunWorkflow:turnWorkflow',
        'StartWorkflow:turnWorkflow',
      ]);
    const byIndex = [...chats].sort(
      (a, b) =>
        Number(a.attributes['durable_turns.response.index']) -
        Number(b.attributes['durable_turns.response.index']),
    );
    expect(byIndex.map((s) => s.attributes)).toEqual([
      expect.objectContaining({
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'scripted',
        'gen_ai.usage.input_tokens': 11,
        'gen_ai.usage.output_tokens': 7,
        'durable_turns.turn.id': turnId,
        'durable_turns.response.tool_calls': 1,
      }),
      expect.objectContaining({
        'gen_ai.operation.name': 'chat',
        'gen_ai.usage.input_tokens': 23,
        'gen_ai.usage.output_tokens': 3,
        'gen_ai.response.finish_reasons': ['stop'],
        'durable_turns.response.tool_calls': 0,
      }),
    ]);

    const attempts = spans
      .filter((s) => s.name === 'execute_tool flaky')
      .sort(
        (a, b) =>
          Number(a.attributes['durable_turns.tool.attempt']) -
          Number(b.attributes['durable_turns.tool.attempt']),
      );
    expect(attempts).toHaveLength(2);
    for (const attempt of attempts)
      expect(ancestry({ span: attempt, spans })).toEqual([
        'execute_tool flaky',
        'RunActivity:runTool',
        'StartActivity:runTool',
        'RunWorkflow:turnWorkflow',
        'StartWorkflow:turnWorkflow',
      ]);
    const [failed, succeeded] = attempts as [ReadableSpan, ReadableSpan];
    expect(failed.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'flaky',
      'gen_ai.tool.call.id': 'f1',
      'durable_turns.tool.attempt': 1,
      'durable_turns.tool.status': 'error',
      'error.type': 'Error',
    });
    expect(succeeded.attributes).toMatchObject({
      'gen_ai.tool.call.id': 'f1',
      'durable_turns.tool.attempt': 2,
      'durable_turns.tool.status': 'ok',
    });
    expect(succeeded.attributes['error.type']).toBeUndefined();

    for (const span of spans)
      for (const name of contentAttributes) expect(span.attributes[name]).toBeUndefined();
    const everything = JSON.stringify(spans.map((s) => [s.name, s.attributes, s.events, s.status]));
    expect(everything).not.toContain(secretArgument);
    expect(everything).not.toContain(secretOutput);
    expect(everything).not.toContain('use the flaky tool');

    // The traced run (its patch marker, the interceptors' commands) replays as it ran.
    expect(patchMarkers(history)).toContainEqual(expect.stringContaining(tracingPatchId));
    await expect(
      Worker.runReplayHistory(
        {
          workflowBundle: await suiteWorkflowBundle(),
          sinks: workerTracingOptions({ tracing: undefined }).sinks,
        },
        history ?? {},
        turnId,
      ),
    ).resolves.toBeUndefined();
  });

  test('a turn started without a trace context traces nothing in its workflow: no workflow spans, no trace header in its history', async () => {
    const { spans, history } = await tracedTurn({ captureMessageContent: false, clientTraced: false });

    // The workflow's own spans (the activities' queries of it are the activities').
    const workflowSpan = /^(StartWorkflow|RunWorkflow|StartActivity|Handle|Validate|ContinueAsNew)/;
    expect(spans.map((s) => s.name).filter((name) => workflowSpan.test(name))).toEqual([]);
    // Each activity is a trace of its own, with the same spans under it.
    const activities = spans.filter((s) => s.name.startsWith('RunActivity:'));
    expect(activities.map((s) => s.parentSpanContext)).toEqual(activities.map(() => undefined));
    expect(spans.filter((s) => s.name === 'execute_tool flaky')).toHaveLength(2);
    const events = history?.events ?? [];
    expect(events.filter((e) => e.activityTaskScheduledEventAttributes)).toHaveLength(4);
    expect(
      events.filter((e) => e.activityTaskScheduledEventAttributes?.header?.fields?.['_tracer-data']),
    ).toEqual([]);
    expect(patchMarkers(history)).not.toContainEqual(expect.stringContaining(tracingPatchId));
  });

  test('stays one trace across continue-as-new: the next run is a child of the one before', async () => {
    const { spans } = await tracedTurn({ captureMessageContent: false, continueAsNewAfterEvents: 10 });

    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    const runs = spans.filter((s) => s.name === 'RunWorkflow:turnWorkflow');
    expect(runs.length).toBeGreaterThan(1);
    const last = runs.find((run) => ancestry({ span: run, spans }).includes('ContinueAsNew:turnWorkflow'));
    expect(last && ancestry({ span: last, spans }).at(-1)).toBe('StartWorkflow:turnWorkflow');
    expect(spans.filter((s) => s.name === 'chat scripted')).toHaveLength(2);
  });

  test('records prompts, completions, tool arguments and outputs when message content is captured', async () => {
    const { spans } = await tracedTurn({ captureMessageContent: true });

    const succeeded = spans.find(
      (s) => s.name === 'execute_tool flaky' && s.attributes['durable_turns.tool.attempt'] === 2,
    );
    expect(succeeded?.attributes['gen_ai.tool.call.arguments']).toContain(secretArgument);
    expect(succeeded?.attributes['gen_ai.tool.call.result']).toContain(secretOutput);
    const chats = spans.filter((s) => s.name === 'chat scripted');
    expect(chats.map((s) => s.attributes['gen_ai.input.messages'])).toEqual([
      expect.stringContaining('use the flaky tool'),
      expect.stringContaining(secretOutput),
    ]);
    expect(chats.map((s) => s.attributes['gen_ai.output.messages'])).toContainEqual(
      expect.stringContaining('done'),
    );
  });
});

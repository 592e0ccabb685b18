import { context, createContextKey, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { defineTool, InProcessExecutor, scriptedModel } from 'durable-turns';
import { createTurnTracing } from 'durable-turns/tracing';
import { z } from 'zod';

const secretArgument = 'argument-only-the-tool-should-see';
const secretOutput = 'output-only-the-model-should-see';

const flaky = defineTool({
  name: 'flaky',
  description: 'Fails once, then answers',
  input: z.object({ secret: z.string() }),
  retry: { maxAttempts: 2, initialDelayMs: 0 },
  concurrencySafe: true,
  execute: ({ secret }, ctx) => {
    if (ctx.attempt === 1) throw new Error('the first attempt fails');
    return `${secretOutput} for ${secret.length} characters`;
  },
});

async function tracedTurn({ captureMessageContent }: { captureMessageContent: boolean }) {
  const exporter = new InMemorySpanExporter();
  const tracing = createTurnTracing({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
    captureMessageContent,
  });
  const executor = new InProcessExecutor({
    tools: [flaky],
    // The call completes mid-stream (it starts before the response ends), the second one at its end.
    model: scriptedModel([
      {
        toolCalls: [{ id: 'f1', name: 'flaky', args: { secret: secretArgument } }],
        usage: { inputTokens: 11, outputTokens: 7 },
        finishDelayMs: 20,
      },
      { text: 'done', usage: { inputTokens: 23, outputTokens: 3 } },
    ]),
    tracing,
  });
  const result = await executor.runTurn({ turnId: 'traced-in-process', input: 'use the flaky tool' });
  expect(result.status).toBe('completed');
  return exporter.getFinishedSpans();
}

const parentName = (span: ReadableSpan, spans: readonly ReadableSpan[]) =>
  spans.find((s) => s.spanContext().spanId === span.parentSpanContext?.spanId)?.name;

describe('a traced turn in process', () => {
  test('is one invoke_agent span with a chat span per model request and an execute_tool span per attempt under it', async () => {
    const spans = await tracedTurn({ captureMessageContent: false });

    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    const [turn, ...more] = spans.filter((s) => !s.parentSpanContext);
    expect(more).toEqual([]);
    expect(turn?.name).toBe('invoke_agent');
    expect(turn?.attributes).toMatchObject({
      'durable_turns.turn.id': 'traced-in-process',
      'durable_turns.turn.status': 'completed',
      'gen_ai.usage.input_tokens': 34,
      'gen_ai.usage.output_tokens': 10,
    });
    expect(spans.map((s) => [s.name, parentName(s, spans)]).sort()).toEqual([
      ['chat scripted', 'invoke_agent'],
      ['chat scripted', 'invoke_agent'],
      ['execute_tool flaky', 'invoke_agent'],
      ['execute_tool flaky', 'invoke_agent'],
      ['invoke_agent', undefined],
    ]);
    const attempts = spans.filter((s) => s.name === 'execute_tool flaky').map((s) => s.attributes);
    expect(attempts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          'durable_turns.tool.attempt': 1,
          'error.type': 'Error',
          'gen_ai.tool.call.id': 'f1',
        }),
        expect.objectContaining({ 'durable_turns.tool.attempt': 2, 'durable_turns.tool.status': 'ok' }),
      ]),
    );
    const everything = JSON.stringify(spans.map((s) => [s.name, s.attributes, s.events, s.status]));
    expect(everything).not.toContain(secretArgument);
    expect(everything).not.toContain(secretOutput);
  });

  test('records tool arguments and outputs only when message content is captured', async () => {
    const spans = await tracedTurn({ captureMessageContent: true });
    const succeeded = spans.find((s) => s.attributes['durable_turns.tool.attempt'] === 2);
    expect(succeeded?.attributes['gen_ai.tool.call.arguments']).toContain(secretArgument);
    expect(succeeded?.attributes['gen_ai.tool.call.result']).toContain(secretOutput);
  });
});

describe('tracing in process and the application’s context', () => {
  const marker = createContextKey('marker');

  test('installs no context manager: the process keeps the promise hooks it had (none), traced or not', async () => {
    await tracedTurn({ captureMessageContent: false });
    const marked = ROOT_CONTEXT.setValue(marker, 'set');
    // Without a context manager the API's is a no-op one: what `with` sets is not active inside.
    expect(context.with(marked, () => context.active().getValue(marker))).toBeUndefined();
  });

  test('a turn run inside an application span is its child, once the application has a context manager', async () => {
    const manager = new AsyncLocalStorageContextManager().enable();
    expect(context.setGlobalContextManager(manager)).toBe(true);
    try {
      const exporter = new InMemorySpanExporter();
      const appTracing = createTurnTracing({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
      const request = appTracing.tracer.startSpan('POST /ask');
      const executor = new InProcessExecutor({
        tools: [],
        model: scriptedModel([{ text: 'hello' }]),
        tracing: appTracing,
      });
      await context.with(trace.setSpan(context.active(), request), () =>
        executor.runTurn({ turnId: 'inside-app-span', input: 'hi' }),
      );
      request.end();
      const turn = exporter.getFinishedSpans().find((s) => s.name === 'invoke_agent');
      expect(turn?.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    } finally {
      context.disable();
    }
  });
});

import {
  type Context,
  context,
  ROOT_CONTEXT,
  type SpanContext,
  SpanStatusCode,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import {
  AlwaysOnSampler,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  type Span,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import { ChildSpans } from './child-spans';
import { childSpansOf, createTurnTracing } from './turn-tracing';

const attributes = () => ({ 'gen_ai.tool.name': 'noop', 'durable_turns.tool.attempt': 2 });

/** The same child span made twice under one parent: by the SDK's Tracer, and by ChildSpans. */
function bothWays() {
  const exporter = new InMemorySpanExporter();
  const tracing = createTurnTracing({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const turn = tracing.tracer.startSpan('invoke_agent');
  const parent = trace.setSpan(context.active(), turn);
  const childSpans = childSpansOf({ tracing });
  if (!childSpans) throw new Error('createTurnTracing made no ChildSpans in this environment');
  for (const made of [
    tracing.tracer.startSpan('execute_tool noop', { attributes: attributes() }, parent),
    childSpans.start({ name: 'execute_tool noop', parent, attributes: attributes() }),
  ]) {
    made?.setAttribute('durable_turns.tool.status', 'error');
    made?.setStatus({ code: SpanStatusCode.ERROR, message: 'Error' });
    made?.end();
  }
  turn.end();
  const [sdk, ours, turnSpan] = exporter.getFinishedSpans();
  if (!sdk || !ours || !turnSpan) throw new Error('a span was not exported');
  return { sdk, ours, turn: turnSpan };
}

/** Every field of the ReadableSpan interface, with the ids and times that differ between two spans. */
function readable(span: ReadableSpan) {
  const { spanId, ...spanContext } = span.spanContext();
  return {
    name: span.name,
    kind: span.kind,
    spanContext,
    parentSpanContext: span.parentSpanContext,
    status: span.status,
    attributes: span.attributes,
    links: span.links,
    events: span.events,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

const nanos = ([seconds, ns]: readonly [number, number]) => BigInt(seconds) * 1_000_000_000n + BigInt(ns);

describe('a child span made without the Tracer', () => {
  test('reads, field by field, as the span the SDK makes of it', () => {
    const { sdk, ours, turn } = bothWays();
    expect(readable(ours)).toEqual(readable(sdk));
    expect(ours.parentSpanContext?.spanId).toBe(turn.spanContext().spanId);
    expect(nanos(ours.startTime)).toBeGreaterThanOrEqual(nanos(turn.startTime));
    expect(ours.spanContext().spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(ours.spanContext().spanId).not.toBe(sdk.spanContext().spanId);
    expect(nanos(ours.duration)).toBe(nanos(ours.endTime) - nanos(ours.startTime));
    expect(ours.duration[1]).toBeLessThan(1e9);
    // Stamped as the SDK stamps its own: the wall clock then, to the millisecond at least.
    expect(Number(nanos(ours.startTime) / 1_000_000n)).toBeGreaterThanOrEqual(
      Number(nanos(sdk.startTime) / 1_000_000n),
    );
    expect(Number(nanos(ours.endTime) / 1_000_000n)).toBeLessThanOrEqual(Date.now());
  });

  test('serializes to OTLP (JSON and protobuf) as the SDK’s span does', () => {
    const { sdk, ours } = bothWays();
    const json = (span: ReadableSpan) => {
      const request = JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest([span])));
      const { spanId, startTimeUnixNano, endTimeUnixNano, ...rest } =
        request.resourceSpans[0].scopeSpans[0].spans[0];
      expect(spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(BigInt(endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(startTimeUnixNano));
      return { ...request, resourceSpans: [{ ...request.resourceSpans[0], scopeSpans: [rest] }] };
    };
    expect(json(ours)).toEqual(json(sdk));
    const protobuf = (span: ReadableSpan) => ProtobufTraceSerializer.serializeRequest([span])?.length;
    // Same fields, the same number of bytes: only the id and time bytes differ.
    expect(protobuf(ours)).toBeGreaterThan(0);
    expect(protobuf(ours)).toBe(protobuf(sdk));
  });

  test('is started and ended in every span processor, as the Tracer’s spans are', () => {
    const seen: string[] = [];
    const processor = (name: string): SpanProcessor => ({
      onStart: (span: Span, parentContext: Context) => {
        seen.push(`${name} start ${span.name} ${trace.getSpan(parentContext)?.spanContext().spanId}`);
        span.setAttribute('added.on.start', name);
      },
      onEnding: (span: Span) => void seen.push(`${name} ending ${span.ended}`),
      onEnd: (span: ReadableSpan) =>
        void seen.push(`${name} end ${span.ended} ${span.attributes['added.on.start']}`),
      forceFlush: async () => {},
      shutdown: async () => {},
    });
    const tracing = createTurnTracing({ spanProcessors: [processor('a'), processor('b')] });
    const turn = tracing.tracer.startSpan('invoke_agent');
    seen.length = 0;
    const span = childSpansOf({ tracing })?.start({
      name: 'execute_tool noop',
      parent: trace.setSpan(ROOT_CONTEXT, turn),
      attributes: attributes(),
    });
    span?.end();
    span?.end();
    const parentId = turn.spanContext().spanId;
    expect(seen).toEqual([
      `a start execute_tool noop ${parentId}`,
      `b start execute_tool noop ${parentId}`,
      'a ending false',
      'b ending false',
      'a end true b',
      'b end true b',
    ]);
  });

  test('is left to the Tracer without a parent, or when tracing is suppressed', () => {
    const tracing = createTurnTracing({ spanProcessors: [] });
    const childSpans = childSpansOf({ tracing });
    const sampled: SpanContext = tracing.tracer.startSpan('invoke_agent').spanContext();
    const start = (parent: Context) =>
      childSpans?.start({ name: 'execute_tool noop', parent, attributes: {} });
    expect(start(trace.setSpanContext(ROOT_CONTEXT, sampled))).toBeDefined();
    expect(start(ROOT_CONTEXT)).toBeUndefined();
    expect(
      start(trace.setSpanContext(ROOT_CONTEXT, trace.wrapSpanContext(sampled).spanContext())),
    ).toBeDefined();
    expect(start(suppressTracing(trace.setSpanContext(ROOT_CONTEXT, sampled)))).toBeUndefined();
  });
});

describe('a child of a parent the sampler left out', () => {
  test('is the non-recording span the Tracer makes of it, and nothing is exported', () => {
    const exporter = new InMemorySpanExporter();
    const tracing = createTurnTracing({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const childSpans = childSpansOf({ tracing });
    const turn = tracing.tracer.startSpan('invoke_agent').spanContext();
    const unsampled = trace.setSpanContext(ROOT_CONTEXT, { ...turn, traceFlags: TraceFlags.NONE });
    const sdk = tracing.tracer.startSpan('execute_tool noop', { attributes: attributes() }, unsampled);
    const ours = childSpans?.start({
      name: 'execute_tool noop',
      parent: unsampled,
      attributes: attributes(),
    });
    if (!ours) throw new Error('ChildSpans left a child of an unsampled parent to the Tracer');
    const { spanId: sdkId, ...sdkContext } = sdk.spanContext();
    const { spanId: ourId, ...ourContext } = ours.spanContext();
    expect(ourContext).toEqual(sdkContext);
    expect(ourContext).toEqual({ traceId: turn.traceId, traceFlags: TraceFlags.NONE, traceState: undefined });
    expect(ourId).toMatch(/^[0-9a-f]{16}$/);
    expect(ourId).not.toBe(sdkId);
    expect(ours.isRecording()).toBe(sdk.isRecording());
    expect(ours.isRecording()).toBe(false);
    for (const span of [sdk, ours]) {
      span.setAttribute('durable_turns.tool.status', 'ok');
      span.end();
    }
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

describe('spans are made without the Tracer only where the Tracer would sample them all', () => {
  const withEnv = (env: Record<string, string>, check: () => void) => {
    const saved = { ...process.env };
    Object.assign(process.env, env);
    try {
      check();
    } finally {
      for (const name of Object.keys(env)) delete process.env[name];
      Object.assign(process.env, saved);
    }
  };

  test('not with a sampler of the application’s', () => {
    expect(ChildSpans.applicable({ sampler: undefined })).toBe(true);
    expect(ChildSpans.applicable({ sampler: new AlwaysOnSampler() })).toBe(false);
    const tracing = createTurnTracing({ spanProcessors: [], sampler: new AlwaysOnSampler() });
    expect(childSpansOf({ tracing })).toBeUndefined();
  });

  test('with a parent-based sampler from the environment, not with another', () => {
    withEnv({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.5' }, () =>
      expect(ChildSpans.applicable({ sampler: undefined })).toBe(true),
    );
    withEnv({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.5' }, () =>
      expect(ChildSpans.applicable({ sampler: undefined })).toBe(false),
    );
  });

  test('not when the environment sets span limits', () => {
    withEnv({ OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: '8' }, () =>
      expect(ChildSpans.applicable({ sampler: undefined })).toBe(false),
    );
  });
});

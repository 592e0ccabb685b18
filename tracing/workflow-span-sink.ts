import { createTraceState, type SpanContext } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-node';
import type { OpenTelemetrySinks, SerializableSpan } from '@temporalio/interceptors-opentelemetry';
import type { InjectedSinks } from '@temporalio/worker';
import type { TurnTracing } from './turn-tracing';

/**
 * The sink the workflow's OpenTelemetry interceptors hand their finished spans to. Every turn
 * worker installs it, since every turn workflow bundle carries those interceptors and a traced
 * client's turn uses them on any worker (a workflow calling a sink the worker lacks is an error in
 * the worker's log); without tracing it drops them.
 *
 * Not `makeWorkflowExporter`: that one builds spans of the OpenTelemetry SDK 1.x shape
 * (`parentSpanId`, `instrumentationLibrary`), which SDK 2.x processors and exporters read as
 * parentless spans of no scope. These are rebuilt in the 2.x shape.
 */
export function workflowSpanSinks({
  tracing,
}: {
  tracing: TurnTracing | undefined;
}): InjectedSinks<OpenTelemetrySinks> {
  return {
    exporter: {
      export: {
        fn: (info, spans) => {
          if (!tracing) return;
          for (const serialized of spans) {
            const span = readableSpan({
              serialized,
              tracing,
              // The workflow's id, run and type, as Temporal's own exporter adds them.
              extra: {
                temporalWorkflowId: info.workflowId,
                temporalRunId: info.runId,
                temporalWorkflowType: info.workflowType,
              },
            });
            for (const processor of tracing.spanProcessors) processor.onEnd(span);
          }
        },
      },
    },
  };
}

function readableSpan({
  serialized,
  tracing,
  extra,
}: {
  serialized: SerializableSpan;
  tracing: TurnTracing;
  extra: Record<string, string>;
}): ReadableSpan {
  const { traceState, ...rest } = serialized.spanContext;
  const spanContext: SpanContext = {
    ...rest,
    ...(traceState ? { traceState: createTraceState(traceState) } : {}),
  };
  const parentSpanContext: SpanContext | undefined = serialized.parentSpanId
    ? { traceId: spanContext.traceId, spanId: serialized.parentSpanId, traceFlags: spanContext.traceFlags }
    : undefined;
  const scope = serialized.instrumentationLibrary;
  return {
    name: serialized.name,
    kind: serialized.kind,
    spanContext: () => spanContext,
    ...(parentSpanContext ? { parentSpanContext } : {}),
    startTime: serialized.startTime,
    endTime: serialized.endTime,
    status: serialized.status,
    attributes: { ...serialized.attributes, ...extra },
    links: serialized.links,
    events: serialized.events,
    duration: serialized.duration,
    ended: serialized.ended,
    resource: tracing.resource,
    instrumentationScope: {
      name: scope.name,
      ...(scope.version ? { version: scope.version } : {}),
      ...(scope.schemaUrl ? { schemaUrl: scope.schemaUrl } : {}),
    },
    droppedAttributesCount: serialized.droppedAttributesCount,
    droppedEventsCount: serialized.droppedEventsCount,
    droppedLinksCount: serialized.droppedLinksCount,
  };
}

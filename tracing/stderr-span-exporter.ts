import { Console } from 'node:console';
import { type ExportResult, ExportResultCode, hrTimeToMicroseconds } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-node';

/**
 * `OTEL_TRACES_EXPORTER=console`, on standard error: the SDK's ConsoleSpanExporter prints to
 * standard output, which the CLI keeps for results (`--json` lines, the answer), so spans would
 * break every script reading it. Each span as the SDK prints it.
 */
export class StderrSpanExporter implements SpanExporter {
  private readonly out: Console;

  constructor({ stream = process.stderr }: { stream?: NodeJS.WritableStream } = {}) {
    this.out = new Console({ stdout: stream, stderr: stream });
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    for (const span of spans) this.out.dir(spanInfo(span), { depth: 3 });
    done({ code: ExportResultCode.SUCCESS });
  }

  async shutdown(): Promise<void> {}

  async forceFlush(): Promise<void> {}
}

/** The fields the SDK's console exporter prints, in its order. */
function spanInfo(span: ReadableSpan) {
  const context = span.spanContext();
  return {
    resource: { attributes: span.resource.attributes },
    instrumentationScope: span.instrumentationScope,
    traceId: context.traceId,
    parentSpanContext: span.parentSpanContext,
    traceState: context.traceState?.serialize(),
    name: span.name,
    id: context.spanId,
    kind: span.kind,
    timestamp: hrTimeToMicroseconds(span.startTime),
    duration: hrTimeToMicroseconds(span.duration),
    attributes: span.attributes,
    status: span.status,
    events: span.events,
    links: span.links,
  };
}

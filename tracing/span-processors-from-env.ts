import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BatchSpanProcessor, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { StderrSpanExporter } from './stderr-span-exporter';
import { tracesExporterNames } from './traces-exporter-names';

/**
 * The span processors `OTEL_TRACES_EXPORTER` names (`otlp`, `console` — on standard error, which is
 * ours for diagnostics; `none` for none), each batching (`OTEL_BSP_*`). OTLP goes over HTTP as
 * protobuf, or JSON when `OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL=http/json`, to
 * `OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT` with its headers and timeout — the exporter reads those
 * itself, from `process.env`.
 */
export function spanProcessorsFromEnv({ env }: { env: NodeJS.ProcessEnv }): SpanProcessor[] {
  return tracesExporterNames({ env }).map(
    (name) => new BatchSpanProcessor(name === 'otlp' ? otlpExporter({ env }) : new StderrSpanExporter()),
  );
}

function otlpExporter({ env }: { env: NodeJS.ProcessEnv }): SpanExporter {
  const protocol = (
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ??
    env.OTEL_EXPORTER_OTLP_PROTOCOL ??
    'http/protobuf'
  )
    .trim()
    .toLowerCase();
  if (protocol === 'http/protobuf') return new OtlpProtobufExporter();
  if (protocol === 'http/json') return new OtlpJsonExporter();
  throw new Error(
    `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL / OTEL_EXPORTER_OTLP_PROTOCOL=${protocol}: durable-turns sends OTLP over HTTP; ` +
      "set it to http/protobuf (the default) or http/json, and point OTEL_EXPORTER_OTLP_ENDPOINT at the collector's HTTP port (4318).",
  );
}

import type { ClientInterceptors } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { installTraceContext } from './install-trace-context';
import type { TurnTracing } from './turn-tracing';
import { turnTracingFromEnv } from './turn-tracing-from-env';

/**
 * Interceptors for `TurnClient` (its `interceptors` option) that start each turn's trace: starting a
 * turn is a span whose context travels in the workflow's headers, so the workflow, its activities
 * and their model requests and tool attempts join it. Default tracing: the environment's (none
 * when `OTEL_TRACES_EXPORTER` is unset: then no interceptors).
 */
export function turnClientInterceptors({
  tracing = turnTracingFromEnv(),
}: {
  tracing?: TurnTracing | undefined;
} = {}): ClientInterceptors {
  if (!tracing) return {};
  installTraceContext();
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor({ tracer: tracing.tracer })] };
}

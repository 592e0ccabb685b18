import type { ClientInterceptors, WorkflowClientInterceptor } from '@temporalio/client';
import type { TurnTracing } from './turn-tracing';
import { turnTracingFromEnv } from './turn-tracing-from-env';

/**
 * Interceptors for `TurnClient` (its `interceptors` option) that start each turn's trace: starting a
 * turn is a span whose context travels in the workflow's headers, so the workflow, its activities
 * and their model requests and tool attempts join it. Steering a turn (an approval's update, a
 * cancel) is a span too. Reading one (queries, describe) is not: a watcher asks many times a
 * second, and each would be a trace of its own with nothing under it. Default tracing: the
 * environment's (none when `OTEL_TRACES_EXPORTER` is unset: then no interceptors).
 */
export function turnClientInterceptors({
  tracing = turnTracingFromEnv(),
}: {
  tracing?: TurnTracing | undefined;
} = {}): ClientInterceptors {
  if (!tracing) return {};
  // Loaded here: a client without tracing (the default) never loads OpenTelemetry.
  const { installTraceContext } =
    require('./install-trace-context') as typeof import('./install-trace-context');
  const { OpenTelemetryWorkflowClientInterceptor } =
    require('@temporalio/interceptors-opentelemetry') as typeof import('@temporalio/interceptors-opentelemetry');
  installTraceContext();
  const traced = new OpenTelemetryWorkflowClientInterceptor({ tracer: tracing.tracer });
  const writes: WorkflowClientInterceptor = {
    start: (input, next) => traced.start(input, next),
    startWithDetails: (input, next) => traced.startWithDetails(input, next),
    signalWithStart: (input, next) => traced.signalWithStart(input, next),
    startUpdateWithStart: (input, next) => traced.startUpdateWithStart(input, next),
    startUpdate: (input, next) => traced.startUpdate(input, next),
    signal: (input, next) => traced.signal(input, next),
    cancel: (input, next) => traced.cancel(input, next),
    terminate: (input, next) => traced.terminate(input, next),
  };
  return { workflow: [writes] };
}

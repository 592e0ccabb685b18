import { captureMessageContentFromEnv } from './capture-message-content';
import { tracesExporterNames } from './traces-exporter-names';
import type { TurnTracing } from './turn-tracing';

const cached = new Map<string, TurnTracing | undefined>();

/**
 * Tracing as the standard variables ask for it: on when `OTEL_TRACES_EXPORTER` names an exporter
 * (`otlp`, `console`); off when it is unset, `none`, or `OTEL_SDK_DISABLED=true`. Opt-in (the SDK's
 * own default would be `otlp`): a library should not start sending spans because a variable is
 * missing, and an endpoint alone may be meant for metrics. Once per process and configuration:
 * every worker and client in it shares the exporters, which are flushed when the process is about
 * to exit.
 */
export function turnTracingFromEnv(): TurnTracing | undefined {
  const env = process.env;
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  // Every OTEL_ variable: the exporters read theirs (endpoint, headers, …) from the environment too.
  const key = Object.entries(env)
    .filter(([name]) => name.startsWith('OTEL_'))
    .sort(([a], [b]) => a.localeCompare(b))
    .join('\n');
  if (cached.has(key)) return cached.get(key);
  const tracing = tracesExporterNames({ env }).length > 0 ? tracingFor(env) : undefined;
  cached.set(key, tracing);
  // `beforeExit` comes once the loop is empty (a worker's run() returned, its connection closed); the
  // flush it starts keeps the process alive until the last batch is sent.
  if (tracing) process.once('beforeExit', () => void tracing.shutdown().catch(() => {}));
  return tracing;
}

/** Loaded only when traces are asked for: the OpenTelemetry SDK is most of a short process's start. */
function tracingFor(env: NodeJS.ProcessEnv): TurnTracing {
  const { spanProcessorsFromEnv } =
    require('./span-processors-from-env') as typeof import('./span-processors-from-env');
  const { createTurnTracing } = require('./turn-tracing') as typeof import('./turn-tracing');
  return createTurnTracing({
    spanProcessors: spanProcessorsFromEnv({ env }),
    captureMessageContent: captureMessageContentFromEnv({ env }),
  });
}

/**
 * `tsx export-one-span.ts <span name>`: makes tracing from this process's environment, ends one span
 * of that name and flushes it, in a process of its own — the OTLP exporters load Node's http module
 * by dynamic import, which jest's module sandbox cannot do.
 */
import { turnTracingFromEnv } from '../../tracing/turn-tracing-from-env';

async function main() {
  const tracing = turnTracingFromEnv();
  if (!tracing) throw new Error('tracing is off: set OTEL_TRACES_EXPORTER');
  tracing.tracer.startSpan(process.argv[2] ?? 'span').end();
  await tracing.forceFlush();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

export const exporterNames = ['otlp', 'console', 'none'] as const;
export type ExporterName = (typeof exporterNames)[number];

/**
 * The exporters `OTEL_TRACES_EXPORTER` names (a comma-separated list), checked. Apart from the
 * exporters themselves, so that a process without tracing never loads the OpenTelemetry SDK
 * (~400 modules: most of a CLI command's start).
 */
export function tracesExporterNames({ env }: { env: NodeJS.ProcessEnv }): ExporterName[] {
  const names = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !(exporterNames as readonly string[]).includes(name));
  if (unknown.length > 0)
    throw new Error(
      `OTEL_TRACES_EXPORTER=${env.OTEL_TRACES_EXPORTER}: durable-turns exports traces with ${exporterNames.join(', ')}; ` +
        `not ${unknown.join(', ')}. Use otlp (to a collector) or console, or make the spans yourself with createTurnTracing.`,
    );
  return names.includes('none') ? [] : (names as ExporterName[]);
}

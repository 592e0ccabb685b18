import { z } from 'zod';
import { formatIssues } from '../core/schema/format-issues';

const port = z.coerce.number().int().min(0).max(65_535);

const envSchema = z.object({
  DURABLE_TURNS_METRICS_PORT: port.optional(),
  DURABLE_TURNS_SDK_METRICS_PORT: port.optional(),
  DURABLE_TURNS_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
});

export interface MetricsConfig {
  /** Where durable-turns' own metrics are served; absent: not served. */
  metrics?: { port: number; host: string };
  /** Where the Temporal SDK's worker metrics are served; absent: not exported. */
  sdkMetrics?: { port: number; host: string };
}

/**
 * The worker process's metrics settings: DURABLE_TURNS_METRICS_PORT (durable-turns' metrics),
 * DURABLE_TURNS_SDK_METRICS_PORT (the Temporal SDK's), both off when unset, and
 * DURABLE_TURNS_METRICS_HOST for both (default 127.0.0.1; 0.0.0.0 for a scraper elsewhere).
 */
export function metricsConfigFromEnv({ env }: { env: NodeJS.ProcessEnv }): MetricsConfig {
  const blankless = Object.fromEntries(
    Object.entries(env)
      .filter(([name, value]) => name.startsWith('DURABLE_TURNS_') && value?.trim())
      .map(([name, value]) => [name, value?.trim()]),
  );
  const parsed = envSchema.safeParse(blankless);
  if (!parsed.success)
    throw new Error(
      `invalid metrics settings: ${formatIssues(parsed.error, { root: 'settings' })} (a port is an integer 0–65535; unset it to turn that endpoint off)`,
    );
  const {
    DURABLE_TURNS_METRICS_PORT: own,
    DURABLE_TURNS_SDK_METRICS_PORT: sdk,
    DURABLE_TURNS_METRICS_HOST: host,
  } = parsed.data;
  if (own !== undefined && sdk !== undefined && own === sdk && own !== 0)
    throw new Error(
      `DURABLE_TURNS_METRICS_PORT and DURABLE_TURNS_SDK_METRICS_PORT are both ${own}: give the SDK's metrics a port of their own`,
    );
  if (sdk === 0)
    throw new Error(
      'DURABLE_TURNS_SDK_METRICS_PORT=0 would bind a port nobody can find: give it a fixed port, or unset it',
    );
  return {
    ...(own !== undefined ? { metrics: { port: own, host } } : {}),
    ...(sdk !== undefined ? { sdkMetrics: { port: sdk, host } } : {}),
  };
}

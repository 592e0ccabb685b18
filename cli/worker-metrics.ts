import type { MetricsConfig, MetricsServer } from '../metrics';
import { metricsConfigFromEnv } from '../metrics/metrics-config-from-env';
import { CliError } from './cli-error';

/**
 * The metrics settings of a command that runs a worker (`worker`, `dev`): DURABLE_TURNS_METRICS_PORT,
 * DURABLE_TURNS_SDK_METRICS_PORT, DURABLE_TURNS_METRICS_HOST. A malformed one stops the command
 * before anything starts.
 */
export function workerMetricsFromEnv(): MetricsConfig {
  try {
    return metricsConfigFromEnv({ env: process.env });
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error), { cause: error });
  }
}

/** Where the worker's metrics are served, for its ready line. */
export function workerMetricsUrls({
  metrics,
  metricsServer,
}: {
  metrics: MetricsConfig;
  metricsServer: MetricsServer | undefined;
}): { metricsUrl?: string; sdkMetricsUrl?: string } {
  const { sdkMetrics } = metrics;
  return {
    ...(metricsServer && { metricsUrl: metricsServer.url }),
    ...(sdkMetrics && { sdkMetricsUrl: `http://${sdkMetrics.host}:${sdkMetrics.port}/metrics` }),
  };
}

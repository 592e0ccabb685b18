import { type Logger, Runtime } from '@temporalio/worker';

export interface InstallSdkMetricsOptions {
  port: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The runtime's logger (installed in the same call: there is one runtime per process). */
  logger?: Logger;
}

/**
 * Installs the Temporal runtime with its Prometheus exporter on `host:port` (`/metrics`): the
 * SDK's own worker metrics (task slots, poll and schedule-to-start latencies, sticky cache, …),
 * named the Prometheus way (`_total` counters, `_seconds` histograms). The runtime is installed
 * once per process and before any connection, so call this first thing. The exporter is the
 * runtime's own HTTP server (in Rust): it gets a port of its own rather than being proxied
 * through the durable-turns one.
 */
export function installSdkMetrics({ port, host = '127.0.0.1', logger }: InstallSdkMetricsOptions): Runtime {
  const bindAddress = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  try {
    return Runtime.install({
      ...(logger ? { logger } : {}),
      telemetryOptions: {
        metrics: {
          prometheus: {
            bindAddress,
            countersTotalSuffix: true,
            unitSuffix: true,
            useSecondsForDurations: true,
          },
        },
      },
    });
  } catch (error) {
    throw new Error(
      `cannot install the Temporal runtime with SDK metrics on ${bindAddress}: ${error instanceof Error ? error.message : String(error)}. ` +
        'The runtime is made once per process, by Runtime.install or by the first connection: call installSdkMetrics before connecting.',
    );
  }
}

import { readFile } from 'node:fs/promises';
import type { TurnClient } from '../client/turn-client';
import { type DashboardOptions, dashboardConfig } from './dashboard-config';
import { dashboardServer } from './dashboard-server';
import type { TurnWatchSource } from './turn-watch-source';
import type { UpstreamContext } from './upstream-error';

export interface RunningDashboard {
  /** Where it listens, e.g. `http://127.0.0.1:8234`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Checks the settings (no token or no TLS beyond loopback: it refuses, saying how to fix it),
 * then serves the dashboard until `close()`.
 */
export async function startDashboard({
  client,
  upstream,
  options,
  watchSource,
  lingerMs,
  healthIntervalMs,
  portFlag = '--port',
}: {
  client: TurnClient;
  upstream: UpstreamContext;
  options: DashboardOptions;
  watchSource?: TurnWatchSource;
  lingerMs?: number;
  healthIntervalMs?: number;
  /** The command-line flag that sets the port, named when it is taken. */
  portFlag?: string;
}): Promise<RunningDashboard> {
  const config = dashboardConfig({ options });
  const https = config.tls
    ? {
        cert: await readFile(config.tls.cert).catch((error: unknown) => {
          throw new Error(`cannot read the TLS certificate ${config.tls?.cert}: ${String(error)}`);
        }),
        key: await readFile(config.tls.key).catch((error: unknown) => {
          throw new Error(`cannot read the TLS key ${config.tls?.key}: ${String(error)}`);
        }),
      }
    : undefined;
  const { app } = await dashboardServer({
    client,
    upstream,
    config,
    ...(https && { https }),
    ...(watchSource && { watchSource }),
    ...(lingerMs !== undefined && { lingerMs }),
    ...(healthIntervalMs !== undefined && { healthIntervalMs }),
  });
  await app.listen({ host: config.host, port: config.port }).catch((error: unknown) => {
    const code = (error as { code?: string }).code;
    throw new Error(
      code === 'EADDRINUSE'
        ? `port ${config.port} on ${config.host} is in use; pick another with ${portFlag}`
        : `cannot listen on ${config.host}:${config.port}: ${error instanceof Error ? error.message : String(error)}`,
    );
  });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    url: `${https ? 'https' : 'http'}://${host}:${port}`,
    port,
    close: () => app.close(),
  };
}

import { Connection } from '@temporalio/client';
import { TurnClient } from '../../client/turn-client';
import type { TurnEncryption } from '../../codec/turn-data-converter';
import { type DashboardOptions, dashboardConfig } from '../../dashboard/dashboard-config';
import { dashboardServer } from '../../dashboard/dashboard-server';
import { freePort } from '../../devserver/free-port';

/**
 * A dashboard over real HTTP with no Temporal server behind it: for what it decides itself
 * (sessions, access, its codec routes) before any upstream call.
 */
export async function withOfflineDashboard(
  { options, encryption }: { options: DashboardOptions; encryption?: TurnEncryption },
  use: (url: string) => Promise<void>,
): Promise<void> {
  const connection = Connection.lazy({ address: `127.0.0.1:${await freePort()}` });
  const { app } = await dashboardServer({
    client: new TurnClient({ connection, taskQueue: 'offline', blobStore: false }),
    upstream: { address: 'unused', namespace: 'default' },
    config: dashboardConfig({ options: { port: 0, ...options } }),
    ...(encryption !== undefined && { encryption }),
    // No server: the health feed's reads end at once instead of holding the close.
    upstreamTimeoutMs: 200,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  try {
    await use(`http://127.0.0.1:${port}`);
  } finally {
    await app.close();
    await connection.close();
  }
}

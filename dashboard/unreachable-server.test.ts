import { Connection } from '@temporalio/client';
import { TurnClient } from '../client/turn-client';
import { freePort } from '../devserver/free-port';
import { dashboardConfig } from './dashboard-config';
import { dashboardServer } from './dashboard-server';

/** The dashboard over real HTTP while its Temporal server is gone: answers say so, with the address. */
test('with the Temporal server unreachable, the API answers 503 naming its address', async () => {
  const address = `127.0.0.1:${await freePort()}`;
  const connection = Connection.lazy({ address, connectTimeout: 1_000 });
  const client = new TurnClient({ connection, taskQueue: 'nowhere' });
  const upstreamTimeoutMs = 1_500;
  const { app } = await dashboardServer({
    client,
    upstream: { address, namespace: 'default' },
    config: dashboardConfig({ options: { port: 0 } }),
    upstreamTimeoutMs,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  try {
    // The longest valid turn ids, one of them all escapes: they reach the API, not "no such path".
    const longest = [`/api/turns/${'t'.repeat(256)}`, `/api/turns/${encodeURIComponent('a/'.repeat(128))}`];
    for (const route of ['/api/turns', '/api/turns/some-turn', ...longest, '/api/health']) {
      const started = Date.now();
      const response = await fetch(`http://127.0.0.1:${port}${route}`);
      const body = (await response.json()) as { error: string };
      expect({ route, status: response.status }).toEqual({ route, status: 503 });
      expect(body.error).toContain(`cannot reach Temporal at ${address}`);
      // Bounded by the upstream deadline, not by the client's retries (a few to spare for a busy machine).
      expect(Date.now() - started).toBeLessThan(upstreamTimeoutMs * 4);
    }
  } finally {
    await app.close();
    await connection.close();
  }
});

import { createServer } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { ToolHealthRegistry } from '../core';
import { FleetHealthReporter, fleetHealthReporterDeadlines } from './fleet-health-reporter';

/** A real registry that counts how often the reporter reads it (once per report it sends). */
class CountingRegistry extends ToolHealthRegistry {
  reads = 0;
  override snapshot() {
    this.reads += 1;
    return super.snapshot();
  }
}

/** A port nobody listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function until(what: string, probe: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('FleetHealthReporter', () => {
  it('defaults its TTL to three intervals and reads the registry it was given', () => {
    const health = new ToolHealthRegistry({ now: Date.now });
    health.record('lookup', 'failure', 3);
    const reporter = new FleetHealthReporter({
      client: new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) }),
      taskQueue: 'agents',
      identity: 'worker-a',
      health,
      options: { intervalMs: 2_000 },
      log: () => {},
    });
    expect(reporter.workflowId).toBe('durable-turns-health:agents');
    expect(reporter.snapshot()).toMatchObject({
      identity: 'worker-a',
      intervalMs: 2_000,
      ttlMs: 6_000,
      tools: [{ toolName: 'lookup', attempts: 1, failures: 1 }],
    });
  });

  it('keeps trying when the server is unreachable, says so once, and stops without waiting out the report in flight', async () => {
    const connection = Connection.lazy({ address: `127.0.0.1:${await closedPort()}` });
    const health = new CountingRegistry({ now: Date.now });
    const logged: string[] = [];
    const reporter = new FleetHealthReporter({
      client: new Client({ connection }),
      taskQueue: 'agents',
      identity: 'worker-a',
      health,
      options: { intervalMs: 20 },
      log: (message) => logged.push(message),
    });
    reporter.start();
    try {
      // Each failed report waits out its deadline (the client retries an unreachable server).
      await until('two failed reports', () => health.reads >= 2 && logged.length > 0);
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatch(
        /cannot report tool health to durable-turns-health:agents .*retrying every 20 ms/,
      );
      expect(logged[0]).toContain('turns are not affected');
    } finally {
      // A report is in flight again by now: stopping does not wait it out (nor the leave signal's).
      const stopping = Date.now();
      await reporter.stop({ leave: true });
      expect(Date.now() - stopping).toBeLessThan(fleetHealthReporterDeadlines.reportMs);
      await reporter.idle();
      await connection.close();
    }
    const reads = health.reads;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(health.reads).toBe(reads);
  });
});

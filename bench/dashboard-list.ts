/**
 * How long the dashboard's list takes to load 1,000 turns (target: under a second), over real HTTP
 * against a dev server this script starts. The turns are started on a task queue no worker polls:
 * they are running turns in Visibility, which is all the list reads. Prints one JSON object.
 *
 *   npx tsx bench/dashboard-list.ts          (BENCH_TURNS=N for another count)
 */
import { TurnClient } from 'durable-turns/client';
import { startDashboard } from '../dashboard/start-dashboard';
import { openBenchTemporal } from './temporal-env';

const log = (line: string) => process.stderr.write(`${line}\n`);
const turns = Number(process.env.BENCH_TURNS ?? 1_000);

async function main(): Promise<void> {
  const temporal = await openBenchTemporal(log);
  const taskQueue = `dashboard-list-${process.pid}`;
  const client = new TurnClient({
    connection: temporal.connection,
    namespace: temporal.namespace,
    taskQueue,
  });
  try {
    const prefix = `bench-list-${Date.now().toString(36)}`;
    const startedAt = performance.now();
    for (let i = 0; i < turns; i += 50)
      await Promise.all(
        Array.from({ length: Math.min(50, turns - i) }, (_, j) =>
          client.start({
            turnId: `${prefix}-${String(i + j).padStart(5, '0')}`,
            model: 'none',
            input: [{ role: 'user', content: 'listed, never run' }],
          }),
        ),
      );
    const startMs = performance.now() - startedAt;
    log(`started ${turns} turns in ${Math.round(startMs)} ms; waiting for Visibility`);
    for (;;) {
      const { count } = await client.client.workflow.count(`WorkflowId STARTS_WITH '${prefix}'`);
      if (count >= turns) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const dashboard = await startDashboard({
      client,
      upstream: { address: temporal.address, namespace: temporal.namespace },
      options: { port: 0 },
    });
    try {
      const loadAll = async (limit: number) => {
        const t0 = performance.now();
        let cursor: string | undefined;
        let seen = 0;
        let pages = 0;
        do {
          const url = `${dashboard.url}/api/turns?search=${prefix}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`;
          const body = (await (await fetch(url)).json()) as { turns: unknown[]; nextCursor?: string };
          seen += body.turns.length;
          pages += 1;
          cursor = body.nextCursor;
        } while (cursor);
        return { limit, pages, turns: seen, ms: Math.round(performance.now() - t0) };
      };
      await loadAll(200); // warm-up: connections, the server's caches
      const firstPage = await (async () => {
        const t0 = performance.now();
        await (await fetch(`${dashboard.url}/api/turns?limit=50`)).json();
        return Math.round(performance.now() - t0);
      })();
      const runs = [await loadAll(200), await loadAll(200), await loadAll(100)];
      process.stdout.write(
        `${JSON.stringify({ bench: 'dashboard-list', turns, startMs: Math.round(startMs), firstPageOf50Ms: firstPage, loadAll: runs, targetMs: 1_000 }, null, 2)}\n`,
      );
    } finally {
      await dashboard.close();
    }
  } finally {
    await temporal.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});

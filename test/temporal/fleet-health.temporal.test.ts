import { type ChildProcess, execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { FleetHealthClient, type FleetHealthView, renderFleetHealth } from 'durable-turns/client';
import { uniqueTurnId } from '../conformance/support';
import { sourceChildArgs } from '../support/source-child';
import { testTemporal } from '../support/temporal-env';
import { TemporalKit } from './support/kit';
import { pollFor } from './support/poll';
import { killGroup, WorkerProcesses } from './support/worker-process';

const root = path.join(__dirname, '../..');
const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

const processes = new WorkerProcesses();
afterEach(() => processes.killAll());

function startWorkerProcess(args: {
  taskQueue: string;
  identity: string;
  failingTool: string;
  intervalMs: number;
  stickyTimeoutMs: number;
}): Promise<ChildProcess> {
  const { address, namespace } = testTemporal();
  const { taskQueue, identity, failingTool, intervalMs, stickyTimeoutMs } = args;
  return processes.start({
    script: path.join(__dirname, 'support/fleet-health-worker.ts'),
    args: [address, namespace, taskQueue, identity, failingTool, String(intervalMs), String(stickyTimeoutMs)],
    label: identity,
  });
}

const onWorker = (view: FleetHealthView, toolName: string, identity: string) =>
  view.tools.find((t) => t.toolName === toolName)?.workers.find((w) => w.identity === identity);
const identities = (view: FleetHealthView) => view.workers.map((w) => w.identity);

/** A's `lookup` circuit is open (5 consecutive failures) and B has run `lookup` fine. */
const bothSeen = (view: FleetHealthView) =>
  onWorker(view, 'lookup', 'worker-a')?.circuit === 'open' &&
  (onWorker(view, 'lookup', 'worker-b')?.successes ?? 0) > 0;

describe('fleet tool health across worker processes', () => {
  test('the view names each worker with its own counts — a tool broken on one worker has its circuit open there only — and a SIGKILLed worker drops out after its TTL', async () => {
    const intervalMs = 500;
    const ttlMs = 3 * intervalMs; // the reporter's default
    const stickyTimeoutMs = 1_000;
    const taskQueue = kit.taskQueue('fleet-health');
    const [workerA] = await Promise.all([
      startWorkerProcess({
        taskQueue,
        identity: 'worker-a',
        failingTool: 'lookup',
        intervalMs,
        stickyTimeoutMs,
      }),
      startWorkerProcess({ taskQueue, identity: 'worker-b', failingTool: '-', intervalMs, stickyTimeoutMs }),
    ]);
    const turns = kit.client(taskQueue);
    const health = new FleetHealthClient({ client: turns.client });

    // Which worker runs a tool attempt is up to the server: run turns until both have run `lookup`.
    let turnCount = 0;
    for (; turnCount < 40; turnCount += 1) {
      const turn = await turns.start({ turnId: uniqueTurnId('fleet'), input: 'go', model: 'fleet-script' });
      expect((await turn.result()).status).toBe('completed');
      if (bothSeen(await health.fleetHealth({ taskQueue }))) break;
    }
    const view = await pollFor(
      "worker-a's lookup circuit open and worker-b's lookup fine",
      async () => {
        // The same view through the turn client of that queue.
        const v = await turns.fleetHealth();
        return bothSeen(v) ? v : undefined;
      },
      { timeoutMs: 10 * ttlMs },
    );
    expect(identities(view)).toEqual(['worker-a', 'worker-b']);
    for (const w of view.workers) expect(w).toMatchObject({ intervalMs, ttlMs });
    const lookupOnA = onWorker(view, 'lookup', 'worker-a');
    const lookupOnB = onWorker(view, 'lookup', 'worker-b');
    expect(lookupOnA).toMatchObject({ successes: 0, status: 'unhealthy', circuit: 'open' });
    expect(lookupOnA?.failures).toBeGreaterThanOrEqual(5);
    expect(lookupOnB).toMatchObject({ failures: 0, timeouts: 0, status: 'healthy', circuit: 'closed' });
    const lookup = view.tools.find((t) => t.toolName === 'lookup');
    expect(lookup?.aggregate).toMatchObject({
      workers: 2,
      attempts: (lookupOnA?.attempts ?? 0) + (lookupOnB?.attempts ?? 0),
      status: 'degraded',
      circuits: { closed: 1, open: 1, halfOpen: 0 },
    });
    for (const w of view.tools.find((t) => t.toolName === 'steady')?.workers ?? [])
      expect(w).toMatchObject({ failures: 0, circuit: 'closed' });
    const table = renderFleetHealth({ view, color: false });
    expect(table).toMatch(/^\s+worker-a\s+unhealthy\s+open/m);
    expect(table).toMatch(/^\s+worker-b\s+healthy\s+closed/m);
    // The operator's view: `durable-turns health`, as a script and as a person reads it.
    const cli = (...args: string[]) =>
      promisify(execFile)(process.execPath, sourceChildArgs(path.join(root, 'cli/main.ts'), args), {
        cwd: root,
        env: { ...process.env, NO_COLOR: '1' },
        timeout: 60_000,
      });
    const fromCli = JSON.parse(
      (await cli('health', '--json', '--task-queue', taskQueue)).stdout,
    ) as FleetHealthView;
    expect(fromCli.tools.find((t) => t.toolName === 'lookup')?.aggregate.circuits).toEqual({
      closed: 1,
      open: 1,
      halfOpen: 0,
    });
    const human = (await cli('health', '--task-queue', taskQueue)).stdout;
    expect(human).toMatch(/^\s+worker-a\s+unhealthy\s+open/m);
    expect(human).toMatch(/^\s+worker-b\s+healthy\s+closed/m);

    killGroup(workerA);
    const killedAt = Date.now();
    let lastWithA = view;
    const without = await pollFor(
      'worker-a to drop out',
      async () => {
        const v = await health.fleetHealth({ taskQueue });
        if (identities(v).includes('worker-a')) {
          lastWithA = v;
          return undefined;
        }
        return v;
      },
      // A guard, not the measure: the TTL, the sticky queue's timeout and the next report's task.
      { timeoutMs: 10 * (ttlMs + stickyTimeoutMs + intervalMs) },
    );
    const droppedAfterMs = Date.now() - killedAt;
    expect(identities(without)).toEqual(['worker-b']);
    // Not early: the roster changed at a workflow time past A's last report plus its TTL.
    const aLast = lastWithA.workers.find((w) => w.identity === 'worker-a');
    expect(Date.parse(without.asOf ?? '')).toBeGreaterThanOrEqual(Date.parse(aLast?.dropsOutAt ?? ''));
    // B keeps reporting after A is gone.
    const bBefore = Date.parse(without.workers[0]?.lastReportAt ?? '');
    await pollFor(
      'a newer report from worker-b',
      async () => {
        const v = await health.fleetHealth({ taskQueue });
        const b = v.workers.find((w) => w.identity === 'worker-b');
        return b && Date.parse(b.lastReportAt) > bBefore ? b : undefined;
      },
      { timeoutMs: 10 * ttlMs },
    );
    // What a report costs the workflow's history: its events per report, its bytes per report.
    const history = await turns.client.workflow.getHandle(without.workflowId).fetchHistory();
    const events = history.events ?? [];
    const signals = events.filter((e) => e.workflowExecutionSignaledEventAttributes).length;
    const bytes = events.reduce((n, e) => n + JSON.stringify(e).length, 0);
    expect(signals).toBeGreaterThan(0);
    process.stdout.write(
      `fleet health: ${turnCount + 1} turns until both workers were seen; worker-a dropped out ${droppedAfterMs} ms ` +
        `after SIGKILL (TTL ${ttlMs} ms); history ${events.length} events for ${signals} signals ` +
        `(${(events.length / signals).toFixed(1)} events, ${Math.round(bytes / signals)} B per signal)\n`,
    );
  }, 300_000);
});

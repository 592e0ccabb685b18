import type { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { scriptedModel } from 'durable-turns';
import { FleetHealthClient, type FleetHealthView } from 'durable-turns/client';
import { createTurnWorker } from 'durable-turns/worker';
import {
  type FleetHealthWorkflowInputArgs,
  fleetHealthWorkflowId,
  fleetHealthWorkflowType,
  reportHealthSignal,
  type WorkerHealthReport,
} from '../../contract/fleet-health';
import { echoTool } from '../../test/support/echo-tool';
import { toolSnapshot } from '../../test/support/fleet-health-state';
import { suiteWorkflowBundle } from '../../test/support/suite-workflow-bundle';
import { TemporalKit } from '../../test/temporal/support/kit';
import { pollFor } from '../../test/temporal/support/poll';

const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

/** A turn worker that runs the fleet health workflow's tasks but reports nothing itself. */
function bystander(taskQueue: string) {
  return createTurnWorker({
    connection: kit.native,
    namespace: kit.namespace,
    taskQueue,
    tools: [echoTool],
    models: [scriptedModel([{ text: 'hi' }])],
    fleetHealth: false,
  });
}

const report = (identity: string, { ttlMs, attempts = 1 }: { ttlMs: number; attempts?: number }) =>
  ({
    identity,
    reportedAt: Date.now(),
    intervalMs: Math.max(1, Math.floor(ttlMs / 3)),
    ttlMs,
    tools: [toolSnapshot('echo', { attempts, successes: attempts })],
  }) satisfies WorkerHealthReport;

/** What a worker's reporter does: signal-with-start the queue's fleet health workflow. */
function send(
  client: Client,
  taskQueue: string,
  body: WorkerHealthReport,
  args: Partial<FleetHealthWorkflowInputArgs> = {},
) {
  return client.workflow.signalWithStart(fleetHealthWorkflowType, {
    workflowId: fleetHealthWorkflowId({ taskQueue }),
    taskQueue,
    args: [{ taskQueue, ...args }],
    signal: reportHealthSignal,
    signalArgs: [body],
  });
}

const identities = (view: FleetHealthView) => view.workers.map((w) => w.identity);

describe('the fleet health workflow', () => {
  test('continues as new after its signal budget, carrying the roster: no report is lost and each run stays short', async () => {
    const taskQueue = kit.taskQueue('fleet-can');
    const { client } = kit.client(taskQueue);
    const health = new FleetHealthClient({ client });
    const worker = await bystander(taskQueue);
    await worker.runUntil(async () => {
      const sent = { a: 0, b: 0 };
      for (let i = 0; i < 8; i += 1) {
        const identity = i % 2 === 0 ? 'a' : 'b';
        sent[identity] += 1;
        await send(client, taskQueue, report(identity, { ttlMs: 120_000, attempts: sent[identity] }), {
          continueAsNewAfterSignals: 3,
        });
      }
      const view = await pollFor('all eight reports in the roster', async () => {
        const v = await health.fleetHealth({ taskQueue });
        return v.workers.reduce((n, w) => n + w.reports, 0) === 8 ? v : undefined;
      });
      expect(view.workers.map((w) => [w.identity, w.reports])).toEqual([
        ['a', 4],
        ['b', 4],
      ]);
      // The newest report of each worker is the one kept.
      expect(view.tools[0]?.workers.map((w) => [w.identity, w.attempts])).toEqual([
        ['a', 4],
        ['b', 4],
      ]);
      const handle = client.workflow.getHandle(fleetHealthWorkflowId({ taskQueue }));
      // The answering run was continued from an earlier one, and its history is a handful of events.
      const current = await handle.fetchHistory();
      const started = current.events?.[0]?.workflowExecutionStartedEventAttributes;
      expect(started?.continuedExecutionRunId).toBeTruthy();
      expect(current.events?.length ?? 0).toBeLessThan(60);
    });
  });

  test("keeps each tool's success rate over time, per worker, across continue-as-new: a reader that came later sees the past", async () => {
    const taskQueue = kit.taskQueue('fleet-history');
    const { client } = kit.client(taskQueue);
    const health = new FleetHealthClient({ client });
    const worker = await bystander(taskQueue);
    await worker.runUntil(async () => {
      // Six reports, the rate falling with each (attempts n, successes n - failures): a point per
      // report at most (everyMs: 1), three reports a run.
      const reports = [1, 2, 3, 4, 5, 6].map((n) => ({
        ...report(n % 2 === 0 ? 'b' : 'a', { ttlMs: 120_000 }),
        tools: [toolSnapshot('echo', { attempts: n, successes: n, recentSuccessRate: 1 - n / 10 })],
      }));
      for (const [i, body] of reports.entries()) {
        await send(client, taskQueue, body, { continueAsNewAfterSignals: 3, history: { everyMs: 1 } });
        // One report a workflow task: two in one task share a workflow time, and only one point.
        await pollFor(`report ${i + 1} in the roster`, async () => {
          const v = await health.fleetHealth({ taskQueue });
          return v.workers.reduce((n, w) => n + w.reports, 0) === i + 1 ? true : undefined;
        });
      }
      const history = await pollFor('a point of the sixth report', async () => {
        const h = await health.healthHistory({ taskQueue });
        return h.points.at(-1)?.tools.echo?.workers.b === 0.4 ? h : undefined;
      });
      const at = history.points.map((p) => p.at);
      expect(at).toEqual([...at].sort((x, y) => x - y));
      // The first report's point came through two continues-as-new.
      expect(history.points[0]?.tools.echo).toEqual({
        recentSuccessRate: 0.9,
        attempts: 1,
        workers: { a: 0.9 },
      });
      expect(history.points).toHaveLength(6);
      const handle = client.workflow.getHandle(fleetHealthWorkflowId({ taskQueue }));
      const started = (await handle.fetchHistory()).events?.[0]?.workflowExecutionStartedEventAttributes;
      expect(started?.continuedExecutionRunId).toBeTruthy();
      // The newest point: both workers' own rates and the fleet's, weighted by their attempts.
      expect(history.points.at(-1)?.tools.echo).toEqual({
        recentSuccessRate: expect.closeTo((5 * 0.5 + 6 * 0.4) / 11, 10),
        attempts: 11,
        workers: { a: 0.5, b: 0.4 },
      });
    });
  });

  test('drops a silent worker once its TTL has passed in workflow time, closes when the last one is gone, and replays deterministically', async () => {
    const taskQueue = kit.taskQueue('fleet-ttl');
    const { client } = kit.client(taskQueue);
    const health = new FleetHealthClient({ client });
    const worker = await bystander(taskQueue);
    await worker.runUntil(async () => {
      const shortTtlMs = 1_500;
      await send(client, taskQueue, report('short', { ttlMs: shortTtlMs }));
      await send(client, taskQueue, report('long', { ttlMs: 3 * shortTtlMs }));
      const both = await pollFor('both workers in the roster', async () => {
        const v = await health.fleetHealth({ taskQueue });
        return v.workers.length === 2 ? v : undefined;
      });
      const short = both.workers.find((w) => w.identity === 'short');
      expect(short?.ttlMs).toBe(shortTtlMs);
      const without = await pollFor(
        'the silent short-TTL worker to drop out',
        async () => {
          const v = await health.fleetHealth({ taskQueue });
          return identities(v).includes('short') ? undefined : v;
        },
        { timeoutMs: 10 * shortTtlMs },
      );
      expect(identities(without)).toEqual(['long']);
      // Not early: the roster changed at a workflow time past the worker's last report plus its TTL.
      expect(Date.parse(without.asOf ?? '')).toBeGreaterThanOrEqual(Date.parse(short?.dropsOutAt ?? ''));
      const empty = await pollFor(
        'the workflow to close with its last worker gone',
        async () => {
          const v = await health.fleetHealth({ taskQueue });
          return v.asOf === null ? v : undefined;
        },
        { timeoutMs: 10 * shortTtlMs },
      );
      expect(empty.workers).toEqual([]);
      const handle = client.workflow.getHandle(fleetHealthWorkflowId({ taskQueue }));
      expect((await handle.describe()).status.name).toBe('COMPLETED');
      // Signals, the drop-out timers and the close replay as recorded: the workflow is deterministic.
      await Worker.runReplayHistory(
        { workflowBundle: await suiteWorkflowBundle() },
        await handle.fetchHistory(),
        handle.workflowId,
      );
      // The next report starts a fresh run.
      await send(client, taskQueue, report('again', { ttlMs: 60_000 }));
      const again = await pollFor('a new run with the new worker', async () => {
        const v = await health.fleetHealth({ taskQueue });
        return v.workers.length > 0 ? v : undefined;
      });
      expect(identities(again)).toEqual(['again']);
    });
  });

  test('a turn worker reports under its Temporal identity every interval, and leaves the fleet at once when it shuts down, long before its TTL', async () => {
    const taskQueue = kit.taskQueue('fleet-leave');
    const { client } = kit.client(taskQueue);
    const health = new FleetHealthClient({ client });
    const ttlMs = 60_000;
    const reporting = await createTurnWorker({
      connection: kit.native,
      namespace: kit.namespace,
      taskQueue,
      tools: [echoTool],
      models: [scriptedModel([{ text: 'hi' }])],
      fleetHealth: { intervalMs: 300, ttlMs },
    });
    await reporting.runUntil(async () => {
      const seen = await pollFor('two reports from the worker', async () => {
        const v = await health.fleetHealth({ taskQueue });
        return (v.workers[0]?.reports ?? 0) >= 2 ? v : undefined;
      });
      expect(seen.workers).toEqual([
        expect.objectContaining({ identity: reporting.options.identity, intervalMs: 300, ttlMs }),
      ]);
    });
    // One process runs one worker per task queue: a non-reporting one now handles the leave signal.
    const keeper = await bystander(taskQueue);
    await keeper.runUntil(() =>
      pollFor(
        'the stopped worker to leave',
        async () => {
          const v = await health.fleetHealth({ taskQueue });
          return v.workers.length === 0 ? v : undefined;
        },
        { timeoutMs: ttlMs / 4 },
      ),
    );
  });
});

/**
 * Scale on one worker (`npm run bench:scale` → bench/results/scale.json; BENCH_QUICK=1 for a smoke
 * run, or any override but the activity slots → scale.partial.json). Against a dev server this script starts (fast queue readers, throwaway
 * SQLite state), with each worker in a child process of its own (bench/scale-worker.ts) so the
 * RSS measured is the worker's alone:
 *
 * A. 200 concurrent turns of 3 responses × 8 no-op calls on one turn worker: tool calls per second
 *    and worker RSS per open turn, against the hand-written floor of the same shape, alternating;
 * B. 1,000 turns waiting for approval at once: time until all wait, worker memory and cache while
 *    they wait, time to resume them all.
 *
 * Overrides: BENCH_SCALE_TURNS, BENCH_SCALE_ROUNDS (measured rounds of A), BENCH_SCALE_RESPONSES,
 * BENCH_SCALE_WIDTH (calls per response), BENCH_SCALE_APPROVALS, BENCH_SCALE_IN_FLIGHT (client
 * calls at once in B), BENCH_SCALE_PARTS=throughput,approvals, BENCH_SCALE_ACTIVITY_SLOTS (the turn
 * workers' activity slots; SDK default 100), BENCH_SCALE_WORKFLOWS_IN_MAIN_THREAD=1 (diagnosis only:
 * the SDK's debugMode, so the worker's main heap figures include the workflows).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { TurnClient } from 'durable-turns/client';
import { buildTurnWorkflowBundle } from 'durable-turns/worker';
import { machineInfo, round, runBench, writeReport } from './measure';
import { measureApprovals } from './scale-approvals';
import { measureThroughput } from './scale-throughput';
import { type ScaleWorkerProcess, startScaleWorker } from './scale-worker-process';
import { openBenchTemporal } from './temporal-env';

const quick = process.env.BENCH_QUICK === '1';
const log = (message: string) => process.stderr.write(`[scale] ${message}\n`);
const envInt = (name: string, fallback: number) => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`${name} must be a positive integer, not ${raw}`);
  return value;
};

const settings = {
  turns: envInt('BENCH_SCALE_TURNS', quick ? 20 : 200),
  runs: envInt('BENCH_SCALE_ROUNDS', quick ? 1 : 3),
  rounds: envInt('BENCH_SCALE_RESPONSES', 3),
  width: envInt('BENCH_SCALE_WIDTH', 8),
  warmupTurns: quick ? 5 : 20,
  approvals: envInt('BENCH_SCALE_APPROVALS', quick ? 100 : 1_000),
  approvalWarmupTurns: quick ? 5 : 20,
  inFlight: envInt('BENCH_SCALE_IN_FLIGHT', 50),
  plateauMs: quick ? 1_000 : 3_000,
  /** BENCH_SCALE_WORKFLOWS_IN_MAIN_THREAD=1: a diagnosis (heap figures then include the workflows), not a measurement. */
  workflowsInMainThread: process.env.BENCH_SCALE_WORKFLOWS_IN_MAIN_THREAD === '1',
  /** The turn workers' activity slots (unset: the SDK's 100); the floor's stay the SDK's. */
  activityTaskSlots: process.env.BENCH_SCALE_ACTIVITY_SLOTS
    ? envInt('BENCH_SCALE_ACTIVITY_SLOTS', 100)
    : null,
};
const parts = new Set(
  (process.env.BENCH_SCALE_PARTS ?? 'throughput,approvals').split(',').map((part) => part.trim()),
);
/** A run of other sizes or parts than the full one does not overwrite its report. */
const partial =
  quick ||
  Object.keys(process.env).some(
    (name) => name.startsWith('BENCH_SCALE_') && name !== 'BENCH_SCALE_ACTIVITY_SLOTS',
  );

const TURN_QUEUE = 'scale-turns';
const FLOOR_QUEUE = 'scale-floor';
const APPROVAL_QUEUE = 'scale-approvals';

/** Everything started here, stopped in reverse order on the way out (also on failure or a signal). */
const cleanups: (() => Promise<void>)[] = [];
async function cleanUp(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch((e: unknown) => log(String(e)));
}
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    log(`${signal}: stopping`);
    void cleanUp().then(() => process.exit(130));
  });

async function withWorker<T>(
  start: () => Promise<ScaleWorkerProcess>,
  use: (worker: ScaleWorkerProcess) => Promise<T>,
): Promise<T> {
  const worker = await start();
  cleanups.push(() => worker.stop());
  try {
    return await use(worker);
  } finally {
    await worker.stop();
  }
}

/**
 * A part's report, or why it failed: a failed verification gives no numbers, and the other part
 * (its own worker process and task queue) still runs. The process exits non-zero.
 */
async function part<T>(name: string, run: () => Promise<T>): Promise<T | { failure: string }> {
  try {
    return await run();
  } catch (error) {
    process.exitCode = 1;
    log(`${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return { failure: error instanceof Error ? error.message : String(error) };
  }
}

async function main(): Promise<void> {
  const started = performance.now();
  const loadBefore = loadavg()[0] ?? 0;
  const load: Record<string, number[]> = { start: loadavg().map((l) => round(l, 2)) };
  const temporal = await openBenchTemporal(log);
  cleanups.push(() => temporal.close());
  try {
    // Bundled here, once: the worker processes load the code and never run a bundler.
    const bundleDir = await mkdtemp(join(tmpdir(), 'durable-turns-scale-'));
    cleanups.push(() => rm(bundleDir, { recursive: true, force: true }));
    const turnBundle = join(bundleDir, 'turn-workflows.js');
    await buildTurnWorkflowBundle({ outFile: turnBundle });
    const floorBundle = join(bundleDir, 'wave-floor.js');
    const { code } = await bundleWorkflowCode({
      workflowsPath: require.resolve('./wave-floor-workflow'),
      logger: { log() {}, trace() {}, debug() {}, info() {}, warn: log, error: log },
    });
    await writeFile(floorBundle, code);

    const client = (taskQueue: string) =>
      new TurnClient({
        connection: temporal.connection,
        namespace: temporal.namespace,
        taskQueue,
        encryption: false,
      });
    const base = {
      address: temporal.address,
      namespace: temporal.namespace,
      rounds: settings.rounds,
      width: settings.width,
    };
    const turnWorker = (taskQueue: string) => () =>
      startScaleWorker(
        {
          ...base,
          kind: 'turn',
          taskQueue,
          workflowBundlePath: turnBundle,
          workflowsInMainThread: settings.workflowsInMainThread,
          ...(settings.activityTaskSlots ? { activityTaskSlots: settings.activityTaskSlots } : {}),
        },
        log,
      );
    const floorWorker = () =>
      startScaleWorker(
        { ...base, kind: 'floor', taskQueue: FLOOR_QUEUE, workflowBundlePath: floorBundle },
        log,
      );

    const throughput = parts.has('throughput')
      ? await part('throughput', () =>
          withWorker(turnWorker(TURN_QUEUE), (ours) =>
            withWorker(floorWorker, async (floor) => ({
              workers: { turn: ours.settings, floor: floor.settings },
              ...(await measureThroughput({
                temporal,
                client: client(TURN_QUEUE),
                turnWorker: ours,
                floorWorker: floor,
                floorQueue: FLOOR_QUEUE,
                turns: settings.turns,
                rounds: settings.rounds,
                width: settings.width,
                runs: settings.runs,
                warmupTurns: settings.warmupTurns,
                log,
              })),
            })),
          ),
        )
      : undefined;
    load.afterThroughput = loadavg().map((l) => round(l, 2));

    // A fresh worker process: its idle RSS is not the high-water mark part A left.
    const approvals = parts.has('approvals')
      ? await part('approvals', () =>
          withWorker(turnWorker(APPROVAL_QUEUE), async (worker) => ({
            worker: worker.settings,
            ...(await measureApprovals({
              temporal,
              client: client(APPROVAL_QUEUE),
              worker,
              taskQueue: APPROVAL_QUEUE,
              turns: settings.approvals,
              warmupTurns: settings.approvalWarmupTurns,
              inFlight: settings.inFlight,
              plateauMs: settings.plateauMs,
              log,
            })),
          })),
        )
      : undefined;
    load.afterApprovals = loadavg().map((l) => round(l, 2));

    await writeReport(partial ? 'scale.partial.json' : 'scale.json', {
      benchmark: 'scale',
      quick,
      settings,
      machine: machineInfo(loadBefore),
      /** 1-, 5- and 15-minute load averages at the start and after each part. */
      loadAverages: load,
      temporal: {
        server: `temporal server start-dev (embedded), headless, started by this run; its SQLite file on ${temporal.stateMedium}`,
        serverSettings: temporal.serverSettings,
        serverStartMs: round(temporal.serverStartMs, 0),
      },
      workers:
        'each worker in a child process of its own (node --import tsx bench/scale-worker.ts), loading a bundle built by the parent; turn worker: createTurnWorker defaults except fleetHealth, tracing and encryption off; floor: Worker.create defaults; both with the Temporal runtime Prometheus exporter on (for sticky cache metrics)',
      throughput,
      approvals,
      benchDurationS: round((performance.now() - started) / 1_000, 1),
    });
  } finally {
    await cleanUp();
  }
}

runBench(main);

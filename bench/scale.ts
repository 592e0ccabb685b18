/**
 * Scale on one worker: `npm run bench:scale` → bench/results/scale.json (BENCH_QUICK=1 for a smoke
 * run, or BENCH_SCALE_TURNS / BENCH_SCALE_ROUNDS → scale.partial.json). Against a dev server this
 * script starts, 200 concurrent turns of 3 responses × 8 no-op calls on one turn worker, against the
 * hand-written floor of the same shape (bench/wave-floor-workflow.ts) on a plain worker, in
 * alternating rounds: tool calls per second, and worker memory per open turn = (peak RSS during a
 * run − the idle worker's after warm-up) / turns. Each worker is a process of its own
 * (bench/worker-child.ts), so its RSS is the worker's alone. Reported as ours over the floor; the
 * targets (memory per open turn as low as the floor's, the floor's rate) are not met yet.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { TurnClient } from 'durable-turns/client';
import { buildTurnWorkflowBundle } from 'durable-turns/worker';
import {
  check,
  logger,
  machineInfo,
  median,
  round,
  runBench,
  sampleMs,
  summarize,
  writeReport,
} from './measure';
import { noopSteps, verifyTurns } from './noop';
import { kib, mib, restingRss, sampleRss } from './rss-sampler';
import { type BenchTemporal, openBenchTemporal, quietLogger, serverSettled } from './temporal-env';
import type { waveFloorWorkflow } from './wave-floor-workflow';
import { startBenchWorker, type WorkerProcess } from './worker-process';

const quick = process.env.BENCH_QUICK === '1';
const log = logger('scale');
const envInt = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
  return value;
};
const TURNS = envInt('BENCH_SCALE_TURNS', quick ? 20 : 200);
const RUNS = envInt('BENCH_SCALE_ROUNDS', quick ? 1 : 3);
const RESPONSES = 3;
const WIDTH = 8;
const WARMUP_TURNS = quick ? 5 : 20;
const CALLS_PER_TURN = RESPONSES * WIDTH;
const TURN_QUEUE = 'scale-turns';
const FLOOR_QUEUE = 'scale-floor';

type Kind = 'ours' | 'floor';

let seq = 0;
/** Starts `count` workflows of the kind together and waits for every one; returns their check. */
async function launch(client: TurnClient, kind: Kind, count: number): Promise<() => void> {
  const ids = Array.from({ length: count }, () => `${kind}-${++seq}`);
  if (kind === 'ours') {
    const handles = await Promise.all(
      ids.map((turnId) => client.start({ turnId, input: 'go', model: 'waves' })),
    );
    const results = await Promise.all(handles.map((h) => h.result()));
    return () => verifyTurns(results, ids, { calls: CALLS_PER_TURN, responses: RESPONSES + 1 });
  }
  const handles = await Promise.all(
    ids.map((workflowId) =>
      client.client.workflow.start<typeof waveFloorWorkflow>('waveFloorWorkflow', {
        workflowId,
        taskQueue: FLOOR_QUEUE,
        args: [RESPONSES, WIDTH],
      }),
    ),
  );
  const answers = await Promise.all(handles.map((h) => h.result()));
  return () =>
    check(
      answers.every((ok) => ok === CALLS_PER_TURN),
      `floor: every workflow's ${CALLS_PER_TURN} calls answered ok`,
    );
}

async function measure(temporal: BenchTemporal, dir: string, workers: WorkerProcess[]) {
  // Bundled here, once: the worker processes load the code and never run a bundler.
  const turnBundle = join(dir, 'turn-workflows.js');
  await buildTurnWorkflowBundle({ outFile: turnBundle });
  const floorBundle = join(dir, 'wave-floor.js');
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('./wave-floor-workflow'),
    logger: quietLogger,
  });
  await writeFile(floorBundle, code);
  const common = { TEMPORAL_ADDRESS: temporal.address, TEMPORAL_NAMESPACE: temporal.namespace };
  const worker: Record<Kind, WorkerProcess> = {
    ours: await startBenchWorker(
      'turn worker',
      {
        ...common,
        BENCH_TASK_QUEUE: TURN_QUEUE,
        BENCH_SCRIPTS: JSON.stringify({ waves: noopSteps(Array.from({ length: RESPONSES }, () => WIDTH)) }),
        BENCH_WORKFLOW_BUNDLE: turnBundle,
        BENCH_LEAN: '1',
      },
      log,
    ),
    floor: await startBenchWorker(
      'floor worker',
      {
        ...common,
        BENCH_WORKER_KIND: 'floor',
        BENCH_TASK_QUEUE: FLOOR_QUEUE,
        BENCH_WORKFLOW_BUNDLE: floorBundle,
      },
      log,
    ),
  };
  workers.push(worker.ours, worker.floor);
  const pid = (kind: Kind) => worker[kind].pid ?? 0;
  const client = new TurnClient({
    connection: temporal.connection,
    namespace: temporal.namespace,
    taskQueue: TURN_QUEUE,
    encryption: false,
  });

  log(`warm-up, ${WARMUP_TURNS} of each`);
  for (const kind of ['ours', 'floor'] as const) (await launch(client, kind, WARMUP_TURNS))();
  await serverSettled(temporal.serverPid, { belowCores: 0.1 });
  const idle = { ours: await restingRss(pid('ours')), floor: await restingRss(pid('floor')) };

  const runs: Record<Kind, { wallMs: number; peakBytes: number }[]> = { ours: [], floor: [] };
  for (let r = 0; r < RUNS; r++) {
    for (const kind of r % 2 === 0 ? (['floor', 'ours'] as const) : (['ours', 'floor'] as const)) {
      await serverSettled(temporal.serverPid, { belowCores: 0.1 });
      const rss = sampleRss(pid(kind));
      const started = performance.now();
      const verify = await launch(client, kind, TURNS);
      const wallMs = performance.now() - started;
      const { peakBytes } = rss.stop();
      verify();
      runs[kind].push({ wallMs, peakBytes });
      log(`round ${r + 1}/${RUNS} ${kind}: ${wallMs.toFixed(0)} ms, peak RSS ${mib(peakBytes)} MiB`);
    }
  }
  const report = (kind: Kind) => {
    const wall = summarize(runs[kind].map((run) => run.wallMs));
    const peak = median(runs[kind].map((run) => run.peakBytes));
    return {
      wallMs: sampleMs(wall),
      toolCallsPerSecond: round((TURNS * CALLS_PER_TURN) / (wall.medianMs / 1_000), 1),
      rss: {
        idleAfterWarmupMiB: mib(idle[kind]),
        peakMiB: mib(peak),
        perOpenTurnKiB: kib((peak - idle[kind]) / TURNS),
      },
      settings: worker[kind].ready.settings,
    };
  };
  const ours = report('ours');
  const floor = report('floor');
  return {
    turns: TURNS,
    turn: `${RESPONSES} responses × ${WIDTH} concurrency-safe no-op calls, then text; dispatch defaults (parallel, maxConcurrency 8)`,
    floorWorkflow: `bench/wave-floor-workflow.ts: ${RESPONSES} × (a no-op "model" activity, then ${WIDTH} no-op activities at once), then a last "model" activity; a plain Worker (SDK defaults)`,
    method:
      'all workflows of a run started together, timed to the last result; ours and the floor alternate in each round (floor first in odd rounds), server settled before each; RSS of the worker process sampled from /proc every 100 ms; per open turn = (median peak − idle RSS after warm-up) / turns; every turn verified (completed, every output ok)',
    warmupTurnsEach: WARMUP_TURNS,
    runs: RUNS,
    ours,
    floor,
    /** Paired within each round, so a slow spell of the machine hits both sides of the ratio. */
    oursOverFloorRate: round(
      median(runs.ours.map((run, i) => (runs.floor[i]?.wallMs ?? Number.NaN) / run.wallMs)),
    ),
    oursOverFloorMemoryPerOpenTurn: round(ours.rss.perOpenTurnKiB / floor.rss.perOpenTurnKiB, 2),
  };
}

async function main(): Promise<void> {
  const started = performance.now();
  const loadBefore = loadavg()[0] ?? 0;
  const temporal = await openBenchTemporal(log);
  const dir = await mkdtemp(join(tmpdir(), 'durable-turns-scale-'));
  const workers: WorkerProcess[] = [];
  try {
    const throughput = await measure(temporal, dir, workers);
    const partial = quick || Object.keys(process.env).some((name) => name.startsWith('BENCH_SCALE_'));
    await writeReport(partial ? 'scale.partial.json' : 'scale.json', {
      benchmark: 'scale',
      quick,
      machine: machineInfo(loadBefore),
      temporal: {
        server: `temporal server start-dev (embedded), headless, started by this run; its SQLite file on ${temporal.stateMedium}`,
        serverSettings: temporal.serverSettings,
      },
      workers:
        'each worker in a child process of its own (node --import tsx bench/worker-child.ts), loading a bundle built by the parent; turn worker: createTurnWorker defaults except fleetHealth, tracing and encryption off; floor: Worker.create defaults',
      throughput,
      benchDurationS: round((performance.now() - started) / 1_000, 1),
    });
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await rm(dir, { recursive: true, force: true });
    await temporal.close();
  }
}

runBench(main);

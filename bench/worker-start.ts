/**
 * Worker start benchmark: how long a fresh worker process takes from `createTurnWorker` to its
 * first completed workflow task, bundling the turn workflow at start (webpack) versus loading a
 * bundle built ahead (`buildTurnWorkflowBundle`), and that prebuilt bundle versus one built with
 * Temporal's own webpack config (`bundleWorkflowCode` as it comes: full inline source map with the
 * sources' text, no tree shaking — how turn bundles were built before turnWorkflowWebpackConfig),
 * and one built that way without the OpenTelemetry workflow interceptors (the bundle before they
 * were added: its manifest claims them, so the worker takes it; untraced turns run the same).
 * Each run is a fresh process (the bundle is memoized per process), the kinds interleaved, against
 * one dev server this script starts. Prints one JSON object to stdout (progress on stderr) and
 * writes it to bench/results/worker-start.json.
 *
 *   npx tsx bench/worker-start.ts      (BENCH_QUICK=1 for a fast smoke run; BENCH_RUNS=n runs per kind)
 *
 * BENCH_BUNDLE_FROM=dist builds the two prebuilt bundles from the compiled dist/ (what `npm run
 * build` ships; run it first) rather than from the TypeScript sources; bundling at start is always
 * from the sources (the child loads durable-turns through tsx).
 *
 * Before each run a turn is started with no worker polling, so its first workflow task waits; the
 * child then creates the worker and times, in its own clock, until the first model request, and reads
 * from the history when that first workflow task completed (the server is on this machine: one clock).
 */

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode } from '@temporalio/worker';
import { z } from 'zod';
import { bundleSizes } from './bundle-sizes';
import { check, machineInfo, round, sampleMs, summarize } from './measure';
import { eventTimeMs, openBenchTemporal, serverSettled } from './temporal-env';

const quick = process.env.BENCH_QUICK === '1';
const RUNS = Number(process.env.BENCH_RUNS ?? (quick ? 2 : 7));
const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

const kinds = [
  'bundle-at-start',
  'prebuilt',
  'prebuilt-sdk-webpack',
  'prebuilt-sdk-webpack-untraced',
] as const;
type Kind = (typeof kinds)[number];
const prebuiltKinds = ['prebuilt', 'prebuilt-sdk-webpack', 'prebuilt-sdk-webpack-untraced'] as const;
type PrebuiltKind = (typeof prebuiltKinds)[number];
/** Fresh-process builds of each prebuilt kind (BENCH_BUILD_RUNS). */
const BUILD_RUNS = Number(process.env.BENCH_BUILD_RUNS ?? (quick ? 1 : 3));
const bundleFrom = z.enum(['source', 'dist']).parse(process.env.BENCH_BUNDLE_FROM ?? 'source');

const childResultSchema = z.object({
  kind: z.enum(kinds),
  /** Process start (its time origin) → createTurnWorker called: node, tsx, imports, connecting. */
  processToCreateMs: z.number(),
  /** createTurnWorker called → it returned (bundling or loading the bundle, then Worker.create). */
  createMs: z.number(),
  /**
   * CPU time this process (all its threads: the workflow thread's start too) spent meanwhile: less
   * swayed by other processes' load than createMs, on a busy machine.
   */
  createCpuMs: z.number(),
  /** createTurnWorker called → the first workflow task completed (server's event time). */
  startToFirstWorkflowTaskMs: z.number(),
  /** createTurnWorker returned → the server handed the worker the waiting workflow task (polling, matching). */
  createdToFirstTaskStartedMs: z.number(),
  /** The first workflow task, started → completed (the workflow's VM context made, its first activation run). */
  firstTaskRunMs: z.number(),
  /** createTurnWorker called → the model activity's first request, in this process. */
  startToFirstModelRequestMs: z.number(),
  /** Process start → the first workflow task completed. */
  processToFirstWorkflowTaskMs: z.number(),
});
type ChildResult = z.infer<typeof childResultSchema>;

const EventType = temporal.api.enums.v1.EventType;

/** One fresh worker process: starts a turn, then the worker, and reports when the first task ran. */
async function child(kind: Kind): Promise<void> {
  // Imported here so the parent (which only spawns) pays nothing for them and the child pays its own.
  const { Client, Connection } = await import('@temporalio/client');
  const { NativeConnection } = await import('@temporalio/worker');
  const { scriptedModel } = await import('durable-turns');
  const { TurnClient } = await import('durable-turns/client');
  const { createTurnWorker } = await import('durable-turns/worker');
  const address = process.env.BENCH_TEMPORAL_ADDRESS ?? '';
  const taskQueue = `worker-start-${process.pid}`;
  const turnId = `worker-start-${process.pid}-${Date.now()}`;
  const native = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  const turns = new TurnClient({ connection, taskQueue });
  const turn = await turns.start({ turnId, input: 'go', model: 'scripted' });
  let firstModelRequestAt: number | undefined;
  const model = scriptedModel([
    () => {
      firstModelRequestAt ??= performance.now();
      return { text: 'started' };
    },
  ]);
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const worker = await createTurnWorker({
    connection: native,
    taskQueue,
    tools: [],
    models: [model],
    workflowBundlePath: kind === 'bundle-at-start' ? false : (process.env.BENCH_BUNDLE_PATH ?? ''),
  });
  const created = performance.now();
  const createCpu = process.cpuUsage(cpuBefore);
  check(
    worker.workflowBundle.kind === (kind === 'bundle-at-start' ? 'bundled-at-start' : 'prebuilt'),
    `a ${kind} run used ${JSON.stringify(worker.workflowBundle)}`,
  );
  const result = await worker.runUntil(turn.result());
  check(result.status === 'completed', `the turn ended ${result.status}`);
  check(firstModelRequestAt !== undefined, 'the model was never asked');
  const history = await new Client({ connection }).workflow.getHandle(turnId).fetchHistory();
  const firstTask = history.events?.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED);
  const firstTaskStarted = history.events?.find(
    (e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
  );
  check(firstTask !== undefined && firstTaskStarted !== undefined, 'no workflow task completed');
  const startedEpoch = performance.timeOrigin + started;
  const report: ChildResult = {
    kind,
    processToCreateMs: round(started, 1),
    createMs: round(created - started, 1),
    createCpuMs: round((createCpu.user + createCpu.system) / 1000, 1),
    startToFirstWorkflowTaskMs: round(eventTimeMs(firstTask) - startedEpoch, 1),
    createdToFirstTaskStartedMs: round(eventTimeMs(firstTaskStarted) - (performance.timeOrigin + created), 1),
    firstTaskRunMs: round(eventTimeMs(firstTask) - eventTimeMs(firstTaskStarted), 1),
    startToFirstModelRequestMs: round(firstModelRequestAt - started, 1),
    processToFirstWorkflowTaskMs: round(eventTimeMs(firstTask) - performance.timeOrigin, 1),
  };
  await connection.close();
  await native.close();
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

/** Runs this script in a fresh process with `env` added; resolves with the JSON of its last stdout line. */
function runProcess({ label, env }: { label: string; env: Record<string, string> }) {
  return new Promise<unknown>((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', __filename], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    proc.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    proc.on('error', reject);
    proc.on('exit', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0) return reject(new Error(`${label} exited ${code}: ${err.slice(-2_000)}`));
      try {
        resolve(JSON.parse(line));
      } catch (error) {
        reject(new Error(`${label} printed no result (${String(error)}): ${out.slice(-500)}`));
      }
    });
  });
}

async function runChild({ kind, address, bundlePath }: { kind: Kind; address: string; bundlePath?: string }) {
  return childResultSchema.parse(
    await runProcess({
      label: `${kind} child`,
      env: {
        BENCH_WORKER_START_CHILD: kind,
        BENCH_TEMPORAL_ADDRESS: address,
        BENCH_BUNDLE_PATH: bundlePath ?? '',
      },
    }),
  );
}

const summary = (values: number[]) => sampleMs(summarize(values));

type WorkerModules = {
  interceptors: typeof import('../worker/workflow-interceptor-modules');
  build: typeof import('../worker/build-turn-workflow-bundle');
  write: typeof import('../worker/write-turn-workflow-bundle');
};

/** The worker modules the prebuilt bundles are built with: the sources, or their compiled dist/. */
function workerModules(): { root: string; modules: WorkerModules } {
  const root = bundleFrom === 'dist' ? join(__dirname, '..', 'dist') : join(__dirname, '..');
  const load = (name: string): unknown => require(join(root, 'worker', name));
  return {
    root,
    modules: {
      interceptors: load('workflow-interceptor-modules') as WorkerModules['interceptors'],
      build: load('build-turn-workflow-bundle') as WorkerModules['build'],
      write: load('write-turn-workflow-bundle') as WorkerModules['write'],
    },
  };
}

/** Builds one kind of prebuilt bundle to `outFile` (in this process): ours, or with Temporal's config. */
async function buildBundle({ kind, outFile }: { kind: PrebuiltKind; outFile: string }): Promise<void> {
  const { root, modules } = workerModules();
  if (kind === 'prebuilt') {
    await modules.build.buildTurnWorkflowBundle({ outFile });
    return;
  }
  const interceptorModuleIds = modules.interceptors.workflowInterceptorModuleIds();
  // Untraced: the bundle as it was before the OpenTelemetry interceptors were added, its manifest
  // claiming them so the worker takes it (a turn started without a trace context runs the same).
  const bundled = kind === 'prebuilt-sdk-webpack-untraced' ? [] : interceptorModuleIds;
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve(join(root, 'workflows')),
    workflowInterceptorModules: bundled.map((id) =>
      modules.interceptors.resolveWorkflowInterceptorModule({ id }),
    ),
    logger: { log: () => {}, trace: () => {}, debug: () => {}, info: () => {}, warn: log, error: log },
  });
  await modules.write.writeTurnWorkflowBundle({ code, outFile, interceptorModuleIds });
}

const buildResultSchema = z.object({
  kind: z.enum(prebuiltKinds),
  buildMs: z.number(),
  buildCpuMs: z.number(),
});

/** A fresh process bundles one kind, as a worker bundling at start would (webpack loaded cold). */
async function buildChild(kind: PrebuiltKind): Promise<void> {
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  await buildBundle({ kind, outFile: process.env.BENCH_BUNDLE_OUT ?? '' });
  const cpu = process.cpuUsage(cpuBefore);
  const report: z.infer<typeof buildResultSchema> = {
    kind,
    buildMs: round(performance.now() - started, 0),
    buildCpuMs: round((cpu.user + cpu.system) / 1000, 0),
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

const perPrebuiltKind = <T>(make: (kind: PrebuiltKind) => T) =>
  Object.fromEntries(prebuiltKinds.map((kind) => [kind, make(kind)])) as Record<PrebuiltKind, T>;

/**
 * The prebuilt bundles, in `dir`, each built BUILD_RUNS times in fresh processes (interleaved),
 * so their build times compare what bundling at start costs with either config.
 */
async function buildPrebuiltBundles({ dir }: { dir: string }) {
  const codePaths = perPrebuiltKind((kind) => join(dir, `${kind}.js`));
  const buildMs = perPrebuiltKind((): number[] => []);
  const buildCpuMs = perPrebuiltKind((): number[] => []);
  for (let round = 0; round < BUILD_RUNS; round += 1) {
    const order = round % 2 === 0 ? prebuiltKinds : [...prebuiltKinds].reverse();
    for (const kind of order) {
      const result = buildResultSchema.parse(
        await runProcess({
          label: `${kind} build`,
          env: { BENCH_WORKER_START_BUILD: kind, BENCH_BUNDLE_OUT: codePaths[kind] },
        }),
      );
      log(`${kind} bundle built in ${result.buildMs} ms, ${result.buildCpuMs} ms of CPU (fresh process)`);
      buildMs[kind].push(result.buildMs);
      buildCpuMs[kind].push(result.buildCpuMs);
    }
  }
  return { codePaths, buildMs, buildCpuMs };
}

async function main() {
  const loadBefore = loadavg()[0] ?? 0;
  const benchStarted = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'bench-worker-start-'));
  const temporalEnv = await openBenchTemporal(log);
  const results: ChildResult[] = [];
  /** Each round's runs by kind: the kinds of one round ran back to back, under the same load. */
  const rounds: Partial<Record<Kind, ChildResult>>[] = [];
  let failure: unknown;
  let built: Awaited<ReturnType<typeof buildPrebuiltBundles>> | undefined;
  try {
    built = await buildPrebuiltBundles({ dir });
    for (let round = 0; round < RUNS; round += 1) {
      // Alternate which kind goes first, so drift in load does not favour one.
      const order = round % 2 === 0 ? kinds : [...kinds].reverse();
      const thisRound: Partial<Record<Kind, ChildResult>> = {};
      rounds.push(thisRound);
      for (const kind of order) {
        await serverSettled(temporalEnv.serverPid);
        const bundlePath = kind === 'bundle-at-start' ? undefined : built.codePaths[kind];
        const result = await runChild({ kind, address: temporalEnv.address, bundlePath });
        log(
          `${kind}: first workflow task ${result.startToFirstWorkflowTaskMs} ms after createTurnWorker (create ${result.createMs} ms, ${result.createCpuMs} ms of CPU)`,
        );
        results.push(result);
        thisRound[kind] = result;
      }
    }
  } catch (error) {
    failure = error;
    log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  } finally {
    await temporalEnv.close();
  }
  const sizeOf = (codePath: string) => bundleSizes({ code: readFileSync(codePath, 'utf8') });
  const sizes = built && perPrebuiltKind((kind) => sizeOf(built.codePaths[kind]));
  rmSync(dir, { recursive: true, force: true });

  const of = (kind: Kind, key: Exclude<keyof ChildResult, 'kind'>) =>
    results.filter((r) => r.kind === kind).map((r) => r[key]);
  const byKind = (kind: Kind) => ({
    startToFirstWorkflowTaskMs: summary(of(kind, 'startToFirstWorkflowTaskMs')),
    createMs: summary(of(kind, 'createMs')),
    createCpuMs: summary(of(kind, 'createCpuMs')),
    createdToFirstTaskStartedMs: summary(of(kind, 'createdToFirstTaskStartedMs')),
    firstTaskRunMs: summary(of(kind, 'firstTaskRunMs')),
    startToFirstModelRequestMs: summary(of(kind, 'startToFirstModelRequestMs')),
    processToCreateMs: summary(of(kind, 'processToCreateMs')),
    processToFirstWorkflowTaskMs: summary(of(kind, 'processToFirstWorkflowTaskMs')),
  });
  const before = byKind('bundle-at-start');
  const after = byKind('prebuilt');
  const ratio = (key: keyof typeof before) => round(before[key].median / after[key].median, 2);
  /** Another prebuilt kind over ours: how many times longer (of the medians), or bigger. */
  const overOurs = (kind: Exclude<PrebuiltKind, 'prebuilt'>) => {
    const theirs = byKind(kind);
    const over = (key: keyof typeof before) => round(theirs[key].median / after[key].median, 2);
    // On a busy machine load swings between rounds more than between kinds: a ratio within each round is steadier.
    const paired = (key: 'createMs' | 'createCpuMs') =>
      rounds.flatMap((r) => {
        const [them, us] = [r[kind], r.prebuilt];
        return them && us ? [round(them[key] / us[key], 2)] : [];
      });
    return {
      totalBytes: sizes ? round(sizes[kind].totalBytes / sizes.prebuilt.totalBytes, 2) : null,
      createMs: over('createMs'),
      createCpuMs: over('createCpuMs'),
      /** Of each round's two runs, then the median of those. */
      createMsPairedMedian: round(summarize(paired('createMs')).medianMs, 2),
      createCpuMsPairedMedian: round(summarize(paired('createCpuMs')).medianMs, 2),
      createCpuMsPaired: paired('createCpuMs'),
      firstTaskRunMs: over('firstTaskRunMs'),
      startToFirstWorkflowTask: over('startToFirstWorkflowTaskMs'),
    };
  };
  const full = {
    machine: machineInfo(loadBefore),
    temporal: {
      server: 'temporal server start-dev (embedded, SQLite in a temp dir), headless, started by this run',
      serverStartMs: round(temporalEnv.serverStartMs, 0),
      worker: 'one createTurnWorker per fresh child process (node --import tsx), a turn waiting for it',
    },
    quick,
    runsPerKind: RUNS,
    ...(failure === undefined
      ? {}
      : { failure: failure instanceof Error ? failure.message : String(failure) }),
    bundleFrom,
    /** In fresh processes, so what bundling at start spends in webpack with each config. */
    bundleBuildMs: perPrebuiltKind((kind) => summary(built?.buildMs[kind] ?? [])),
    bundleBuildCpuMs: perPrebuiltKind((kind) => summary(built?.buildCpuMs[kind] ?? [])),
    bundleSizes: sizes,
    bundleAtStart: before,
    prebuilt: after,
    prebuiltSdkWebpack: byKind('prebuilt-sdk-webpack'),
    prebuiltSdkWebpackUntraced: byKind('prebuilt-sdk-webpack-untraced'),
    /** Temporal's webpack config (how turn bundles were built) over ours, both with the interceptors. */
    sdkWebpackOverPrebuilt: overOurs('prebuilt-sdk-webpack'),
    /** Temporal's config without the tracing interceptors (the bundle before they were added) over ours. */
    sdkWebpackUntracedOverPrebuilt: overOurs('prebuilt-sdk-webpack-untraced'),
    /** Bundling at start over prebuilt, of the medians: how many times longer the first task waits. */
    ratio: {
      startToFirstWorkflowTask: ratio('startToFirstWorkflowTaskMs'),
      processToFirstWorkflowTask: ratio('processToFirstWorkflowTaskMs'),
    },
    savedMsMedian: round(
      before.startToFirstWorkflowTaskMs.median - after.startToFirstWorkflowTaskMs.median,
      0,
    ),
    runs: results,
    benchDurationMs: round(performance.now() - benchStarted, 0),
  };
  const json = JSON.stringify(full, null, 2);
  const resultsDir = join(__dirname, 'results');
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, quick ? 'worker-start.partial.json' : 'worker-start.json');
  writeFileSync(file, `${json}\n`);
  process.stdout.write(`${json}\n`);
  log(`done in ${(full.benchDurationMs / 1000).toFixed(1)} s; written to ${file}`);
  if (failure !== undefined) process.exitCode = 1;
}

const childKind = process.env.BENCH_WORKER_START_CHILD;
const buildKind = process.env.BENCH_WORKER_START_BUILD;
if (buildKind !== undefined) {
  buildChild(z.enum(prebuiltKinds).parse(buildKind)).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
} else if (childKind !== undefined) {
  child(z.enum(kinds).parse(childKind)).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
} else {
  void main();
}

/**
 * Worker start benchmark: how long a fresh worker process takes from `createTurnWorker` to its
 * first completed workflow task, bundling the turn workflow at start (webpack) versus loading a
 * bundle built ahead (`buildTurnWorkflowBundle`), and that prebuilt bundle versus one built with
 * Temporal's own webpack config (`bundleWorkflowCode` as it comes: full inline source map with the
 * sources' text, no tree shaking — how turn bundles were built before turnWorkflowWebpackConfig).
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
import { eventTimeMs } from './history-profile';
import { check, machineInfo, round, sampleMs, summarize } from './measure';
import { openBenchTemporal, serverSettled } from './temporal-env';

const quick = process.env.BENCH_QUICK === '1';
const RUNS = Number(process.env.BENCH_RUNS ?? (quick ? 2 : 7));
const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

const kinds = ['bundle-at-start', 'prebuilt', 'prebuilt-sdk-webpack'] as const;
type Kind = (typeof kinds)[number];
type PrebuiltKind = Exclude<Kind, 'bundle-at-start'>;
const bundleFrom = z.enum(['source', 'dist']).parse(process.env.BENCH_BUNDLE_FROM ?? 'source');

const childResultSchema = z.object({
  kind: z.enum(kinds),
  /** Process start (its time origin) → createTurnWorker called: node, tsx, imports, connecting. */
  processToCreateMs: z.number(),
  /** createTurnWorker called → it returned (bundling or loading the bundle, then Worker.create). */
  createMs: z.number(),
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
  const worker = await createTurnWorker({
    connection: native,
    taskQueue,
    tools: [],
    models: [model],
    workflowBundlePath: kind === 'bundle-at-start' ? false : (process.env.BENCH_BUNDLE_PATH ?? ''),
  });
  const created = performance.now();
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

function runChild({ kind, address, bundlePath }: { kind: Kind; address: string; bundlePath?: string }) {
  return new Promise<ChildResult>((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', __filename], {
      env: {
        ...process.env,
        BENCH_WORKER_START_CHILD: kind,
        BENCH_TEMPORAL_ADDRESS: address,
        BENCH_BUNDLE_PATH: bundlePath ?? '',
      },
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
      if (code !== 0) return reject(new Error(`${kind} child exited ${code}: ${err.slice(-2_000)}`));
      try {
        resolve(childResultSchema.parse(JSON.parse(line)));
      } catch (error) {
        reject(new Error(`${kind} child printed no result (${String(error)}): ${out.slice(-500)}`));
      }
    });
  });
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

/** Both prebuilt bundles, in `dir`, with how long each took to build. */
async function buildPrebuiltBundles({ dir }: { dir: string }) {
  const { root, modules } = workerModules();
  const built = {} as Record<PrebuiltKind, { codePath: string; buildMs: number }>;
  let started = performance.now();
  const ours = await modules.build.buildTurnWorkflowBundle({ outFile: join(dir, 'turn-workflows.js') });
  built.prebuilt = { codePath: ours.codePath, buildMs: performance.now() - started };
  // Second, so it gets the warmer process (webpack loaded): the comparison errs in its favour.
  started = performance.now();
  const interceptorModuleIds = modules.interceptors.workflowInterceptorModuleIds();
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve(join(root, 'workflows')),
    workflowInterceptorModules: interceptorModuleIds.map((id) =>
      modules.interceptors.resolveWorkflowInterceptorModule({ id }),
    ),
    logger: { log: () => {}, trace: () => {}, debug: () => {}, info: () => {}, warn: log, error: log },
  });
  const sdk = await modules.write.writeTurnWorkflowBundle({
    code,
    outFile: join(dir, 'sdk-webpack.js'),
    interceptorModuleIds,
  });
  built['prebuilt-sdk-webpack'] = { codePath: sdk.codePath, buildMs: performance.now() - started };
  return built;
}

async function main() {
  const loadBefore = loadavg()[0] ?? 0;
  const benchStarted = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'bench-worker-start-'));
  const temporalEnv = await openBenchTemporal(log);
  const results: ChildResult[] = [];
  let failure: unknown;
  let built: Awaited<ReturnType<typeof buildPrebuiltBundles>> | undefined;
  try {
    built = await buildPrebuiltBundles({ dir });
    for (const [kind, { buildMs }] of Object.entries(built))
      log(`${kind} bundle built in ${Math.round(buildMs)} ms`);
    for (let round = 0; round < RUNS; round += 1) {
      // Alternate which kind goes first, so drift in load does not favour one.
      const order = round % 2 === 0 ? kinds : [...kinds].reverse();
      for (const kind of order) {
        await serverSettled(temporalEnv.serverPid);
        const bundlePath = kind === 'bundle-at-start' ? undefined : built[kind].codePath;
        const result = await runChild({ kind, address: temporalEnv.address, bundlePath });
        log(
          `${kind}: first workflow task ${result.startToFirstWorkflowTaskMs} ms after createTurnWorker (create ${result.createMs} ms)`,
        );
        results.push(result);
      }
    }
  } catch (error) {
    failure = error;
    log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  } finally {
    await temporalEnv.close();
  }
  const sizeOf = (codePath: string) => bundleSizes({ code: readFileSync(codePath, 'utf8') });
  const sizes = built && {
    prebuilt: sizeOf(built.prebuilt.codePath),
    prebuiltSdkWebpack: sizeOf(built['prebuilt-sdk-webpack'].codePath),
  };
  rmSync(dir, { recursive: true, force: true });

  const of = (kind: Kind, key: Exclude<keyof ChildResult, 'kind'>) =>
    results.filter((r) => r.kind === kind).map((r) => r[key]);
  const byKind = (kind: Kind) => ({
    startToFirstWorkflowTaskMs: summary(of(kind, 'startToFirstWorkflowTaskMs')),
    createMs: summary(of(kind, 'createMs')),
    createdToFirstTaskStartedMs: summary(of(kind, 'createdToFirstTaskStartedMs')),
    firstTaskRunMs: summary(of(kind, 'firstTaskRunMs')),
    startToFirstModelRequestMs: summary(of(kind, 'startToFirstModelRequestMs')),
    processToCreateMs: summary(of(kind, 'processToCreateMs')),
    processToFirstWorkflowTaskMs: summary(of(kind, 'processToFirstWorkflowTaskMs')),
  });
  const before = byKind('bundle-at-start');
  const after = byKind('prebuilt');
  const sdkWebpack = byKind('prebuilt-sdk-webpack');
  const ratio = (key: keyof typeof before) => round(before[key].median / after[key].median, 2);
  const overSdk = (key: keyof typeof before) => round(sdkWebpack[key].median / after[key].median, 2);
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
    bundleBuildAheadMs: {
      prebuilt: round(built?.prebuilt.buildMs ?? Number.NaN, 0),
      prebuiltSdkWebpack: round(built?.['prebuilt-sdk-webpack'].buildMs ?? Number.NaN, 0),
    },
    bundleSizes: sizes,
    bundleAtStart: before,
    prebuilt: after,
    prebuiltSdkWebpack: sdkWebpack,
    /** Temporal's webpack config over ours, both prebuilt, of the medians: how many times longer. */
    sdkWebpackOverPrebuilt: {
      totalBytes: sizes ? round(sizes.prebuiltSdkWebpack.totalBytes / sizes.prebuilt.totalBytes, 2) : null,
      createMs: overSdk('createMs'),
      firstTaskRunMs: overSdk('firstTaskRunMs'),
      startToFirstWorkflowTask: overSdk('startToFirstWorkflowTaskMs'),
    },
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
if (childKind !== undefined) {
  child(z.enum(kinds).parse(childKind)).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
} else {
  void main();
}

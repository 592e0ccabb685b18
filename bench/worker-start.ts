/**
 * Worker start: `npm run bench:worker-start` → bench/results/worker-start.json (BENCH_QUICK=1 for a
 * smoke run; BENCH_RUNS=n runs per kind). How long a fresh worker process takes from
 * `createTurnWorker` to its first completed workflow task, bundling the turn workflow at start
 * (webpack) against loading a bundle built ahead (`buildTurnWorkflowBundle`), reported as the one
 * over the other. Each run is a fresh process (the bundle is memoized per process), the two kinds
 * interleaved, against one dev server this script starts. Before each run a turn is started with no
 * worker polling, so its first workflow task waits; the child then creates the worker and reads from
 * the history when that task completed (the server is on this machine: one clock).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
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
import { eventTimeMs, openBenchTemporal, serverSettled } from './temporal-env';

const quick = process.env.BENCH_QUICK === '1';
const RUNS = Number(process.env.BENCH_RUNS ?? (quick ? 2 : 7));
const log = logger('bench');
const kinds = ['bundle-at-start', 'prebuilt'] as const;
type Kind = (typeof kinds)[number];

interface ChildResult {
  /** Process start (its time origin) → createTurnWorker called: node, tsx, imports, connecting. */
  processToCreateMs: number;
  /** createTurnWorker called → it returned (bundling or loading the bundle, then Worker.create). */
  createMs: number;
  /** CPU time of this process (all its threads) meanwhile: less swayed by other processes' load. */
  createCpuMs: number;
  /** createTurnWorker called → the first workflow task completed (server's event time). */
  startToFirstWorkflowTaskMs: number;
  /** Process start → the first workflow task completed. */
  processToFirstWorkflowTaskMs: number;
}

/** One fresh worker process: starts a turn, then the worker, and reports when the first task ran. */
async function child(kind: Kind): Promise<void> {
  // Imported here so the parent (which only spawns) pays nothing for them and the child pays its own.
  const { Connection } = await import('@temporalio/client');
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
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const worker = await createTurnWorker({
    connection: native,
    taskQueue,
    tools: [],
    models: [scriptedModel([{ text: 'started' }])],
    workflowBundlePath: kind === 'bundle-at-start' ? false : (process.env.BENCH_BUNDLE_PATH ?? ''),
  });
  const createMs = performance.now() - started;
  const createCpu = process.cpuUsage(cpuBefore);
  check(
    worker.workflowBundle.kind === (kind === 'bundle-at-start' ? 'bundled-at-start' : 'prebuilt'),
    `a ${kind} run used ${JSON.stringify(worker.workflowBundle)}`,
  );
  const result = await worker.runUntil(turn.result());
  check(result.status === 'completed', `the turn ended ${result.status}`);
  const history = await turns.client.workflow.getHandle(turnId).fetchHistory();
  const firstTask = eventTimeMs(history.events?.find((e) => e.workflowTaskCompletedEventAttributes));
  check(Number.isFinite(firstTask), 'no workflow task completed');
  const report: ChildResult = {
    processToCreateMs: round(started, 1),
    createMs: round(createMs, 1),
    createCpuMs: round((createCpu.user + createCpu.system) / 1000, 1),
    startToFirstWorkflowTaskMs: round(firstTask - (performance.timeOrigin + started), 1),
    processToFirstWorkflowTaskMs: round(firstTask - performance.timeOrigin, 1),
  };
  await connection.close();
  await native.close();
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

/** This script in a fresh process as the child of `kind`; resolves with the JSON of its last stdout line. */
function runChild(kind: Kind, env: Record<string, string>) {
  return new Promise<ChildResult>((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', __filename], {
      env: { ...process.env, ...env, BENCH_WORKER_START_CHILD: kind },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: string[] = [];
    const err: string[] = [];
    proc.stdout.on('data', (d: Buffer) => out.push(d.toString()));
    proc.stderr.on('data', (d: Buffer) => err.push(d.toString()));
    proc.on('error', reject);
    proc.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`${kind} child exited ${code}: ${err.join('').slice(-2_000)}`));
      try {
        resolve(JSON.parse(out.join('').trim().split('\n').at(-1) ?? '') as ChildResult);
      } catch (error) {
        reject(new Error(`${kind} child printed no result (${String(error)}): ${out.join('').slice(-500)}`));
      }
    });
  });
}

async function main() {
  const loadBefore = loadavg()[0] ?? 0;
  const dir = mkdtempSync(join(tmpdir(), 'bench-worker-start-'));
  const bundlePath = join(dir, 'turn-workflows.js');
  await buildTurnWorkflowBundle({ outFile: bundlePath });
  const temporal = await openBenchTemporal(log);
  const results: Record<Kind, ChildResult[]> = { 'bundle-at-start': [], prebuilt: [] };
  try {
    for (let r = 0; r < RUNS; r += 1) {
      // Alternate which kind goes first, so drift in load does not favour one.
      for (const kind of r % 2 === 0 ? kinds : [...kinds].reverse()) {
        await serverSettled(temporal.serverPid);
        const result = await runChild(kind, {
          BENCH_TEMPORAL_ADDRESS: temporal.address,
          BENCH_BUNDLE_PATH: bundlePath,
        });
        log(`${kind}: first workflow task ${result.startToFirstWorkflowTaskMs} ms after createTurnWorker`);
        results[kind].push(result);
      }
    }
  } finally {
    await temporal.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const byKind = (kind: Kind) =>
    Object.fromEntries(
      (Object.keys(results[kind][0] ?? {}) as (keyof ChildResult)[]).map((key) => [
        key,
        sampleMs(summarize(results[kind].map((r) => r[key]))),
      ]),
    ) as Record<keyof ChildResult, ReturnType<typeof sampleMs>>;
  const atStart = byKind('bundle-at-start');
  const prebuilt = byKind('prebuilt');
  /** Bundling at start over prebuilt, of the medians: how many times longer. */
  const ratio = (key: keyof ChildResult) => round(atStart[key].median / prebuilt[key].median, 2);
  await writeReport(quick ? 'worker-start.partial.json' : 'worker-start.json', {
    machine: machineInfo(loadBefore),
    setup:
      'one createTurnWorker per fresh child process (node --import tsx), a turn waiting for it; temporal server start-dev (embedded, throwaway state) started by this run',
    quick,
    runsPerKind: RUNS,
    bundleAtStart: atStart,
    prebuilt,
    ratio: {
      startToFirstWorkflowTask: ratio('startToFirstWorkflowTaskMs'),
      processToFirstWorkflowTask: ratio('processToFirstWorkflowTaskMs'),
      createCpu: ratio('createCpuMs'),
    },
    savedMsMedian: round(
      median(results['bundle-at-start'].map((r) => r.startToFirstWorkflowTaskMs)) -
        median(results.prebuilt.map((r) => r.startToFirstWorkflowTaskMs)),
      0,
    ),
  });
}

const childKind = process.env.BENCH_WORKER_START_CHILD;
if (childKind === undefined) runBench(main);
else runBench(() => child(childKind as Kind));

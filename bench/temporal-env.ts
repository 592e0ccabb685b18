/**
 * The Temporal side of the benchmarks: a dev server started here (on a throwaway SQLite file, never
 * the one named by TEMPORAL_ADDRESS), connections to it, and helpers to run a worker for a while.
 */

import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { turnSearchAttributeList } from 'durable-turns/client';
import { ensureTemporal, fastQueueReaderConfig } from 'durable-turns/devserver';
import type { HistoryEvent } from '../test/support/history-events';
import { throwawayStateRoot } from '../test/support/throwaway-dir';
import { CLOCK_TICKS, processCpuSeconds } from './proc-stats';

/**
 * Where the throwaway server keeps its SQLite file: tmpfs where there is one (see
 * throwawayStateRoot: the disk's latency is noise, not turns). BENCH_SERVER_ON_DISK=1 keeps it on
 * disk, to see the difference for yourself.
 */
function serverStateBase(): { dir: string; medium: 'tmpfs' | 'disk' } {
  return process.env.BENCH_SERVER_ON_DISK === '1' ? { dir: tmpdir(), medium: 'disk' } : throwawayStateRoot();
}

export interface BenchTemporal {
  address: string;
  namespace: string;
  native: NativeConnection;
  connection: Connection;
  /** How long the dev server took to be ready. */
  serverStartMs: number;
  /** The dev server's process id, for CPU accounting. */
  serverPid: number | undefined;
  /** Where its SQLite file is. */
  stateMedium: 'tmpfs' | 'disk';
  /** The server's dynamic config that bears on timing (the queue readers' poll rates). */
  serverSettings: Readonly<Record<string, number>>;
  close(): Promise<void>;
}

export async function openBenchTemporal(log: (message: string) => void): Promise<BenchTemporal> {
  const base = serverStateBase();
  const stateDir = await mkdtemp(join(base.dir, 'durable-turns-bench-'));
  // Our own server even when the environment names one: the numbers must not depend on it.
  const { TEMPORAL_ADDRESS: _ignored, ...env } = process.env;
  // BENCH_SLOW_QUEUE_READERS=1 runs the server on its stock poll rates, to compare.
  const fastQueueReaders = process.env.BENCH_SLOW_QUEUE_READERS !== '1';
  const started = performance.now();
  const temporal = await ensureTemporal({
    searchAttributes: turnSearchAttributeList,
    env,
    stateDir,
    headless: true,
    fastQueueReaders,
    // Throwaway state: no need to wait for a clean shutdown.
    stopTimeoutMs: 0,
    log: (line) => log(`temporal: ${line}`),
  }).catch(async (error: unknown) => {
    await rm(stateDir, { recursive: true, force: true });
    throw error;
  });
  const serverStartMs = performance.now() - started;
  const native = await NativeConnection.connect({ address: temporal.address });
  const connection = await Connection.connect(temporal.connectionOptions);
  return {
    address: temporal.address,
    namespace: temporal.namespace,
    native,
    connection,
    serverStartMs,
    serverPid: temporal.devServer?.pid,
    stateMedium: base.medium,
    serverSettings: fastQueueReaders ? fastQueueReaderConfig : {},
    close: async () => {
      await connection.close().catch(() => {});
      await native.close().catch(() => {});
      await temporal.stop();
      await rm(stateDir, { recursive: true, force: true });
    },
  };
}

/** Runs the worker until `stop` is called (which resolves once it has shut down). */
export function startWorker(worker: Worker): { stop(): Promise<void> } {
  const running = worker.run();
  let stopped: Promise<void> | undefined;
  return {
    stop: () => {
      stopped ??= (async () => {
        worker.shutdown();
        await running;
      })();
      return stopped;
    },
  };
}

/** Everything an async iterable yields (e.g. a visibility list). */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/**
 * Waits until the dev server has been nearly idle for a moment (it finishes work of earlier runs in
 * the background: visibility, timers, task queues), so a run does not pay for the one before it.
 * Gives up after `maxWaitMs`; returns how long it waited.
 */
export async function serverSettled(
  serverPid: number | undefined,
  { belowCores = 0.05, windowMs = 500, maxWaitMs = 20_000 } = {},
): Promise<number> {
  const started = performance.now();
  if (serverPid === undefined) return 0;
  for (;;) {
    const before = processCpuSeconds(serverPid);
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const after = processCpuSeconds(serverPid);
    const waited = performance.now() - started;
    if (before === undefined || after === undefined) return waited;
    if ((after - before) / (windowMs / 1_000) < belowCores || waited >= maxWaitMs) return waited;
  }
}

/** An event's time on the server's clock, in ms. */
export function eventTimeMs(event: HistoryEvent | undefined): number {
  const t = event?.eventTime;
  return t ? Number(t.seconds ?? 0) * 1_000 + (t.nanos ?? 0) / 1e6 : Number.NaN;
}

export const quietLogger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

let floorBundle: ReturnType<typeof bundleWorkflowCode> | undefined;
/** The hand-written floors (bench/floor-workflow.ts), bundled once per process. */
export const floorWorkflowBundle = () =>
  (floorBundle ??= bundleWorkflowCode({
    workflowsPath: require.resolve('./floor-workflow'),
    logger: quietLogger,
  }));

/** A plain worker running the floors until `stop`; `calls()` counts its no-op activity's runs. */
export async function startFloorWorker(
  bench: BenchTemporal,
  taskQueue: string,
  options: Partial<WorkerOptions> = {},
) {
  let calls = 0;
  const worker = await Worker.create({
    connection: bench.native,
    namespace: bench.namespace,
    taskQueue,
    workflowBundle: await floorWorkflowBundle(),
    activities: {
      floorNoop: async () => {
        calls += 1;
        return 'ok';
      },
    },
    ...options,
  });
  return { ...startWorker(worker), calls: () => calls };
}

/**
 * CPU seconds the whole machine has spent busy so far (every core: user, nice, system, irq,
 * softirq, steal), from /proc/stat; undefined elsewhere.
 */
function machineBusySeconds(): number | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
    const [user, nice, system, _idle, _iowait, irq, softirq, steal] = line
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const busy = [user, nice, system, irq, softirq, steal].reduce<number>((a, b) => a + (b ?? 0), 0);
    return Number.isFinite(busy) ? busy / CLOCK_TICKS : undefined;
  } catch {
    return undefined;
  }
}

const perCore = (cpuS: number | undefined, wallS: number) =>
  cpuS === undefined ? null : Math.round((cpuS / wallS) * 100) / 100;

/**
 * How many cores this process (worker, client, bench), the dev server and everything else on the
 * machine kept busy between `start` and `stop`: CPU seconds over wall seconds. `otherCores` is
 * load the benchmark did not make; on a shared machine it says which runs were disturbed. With
 * `workerPid` (a worker in a child process) that process is counted apart, not as "other".
 */
export function cpuMeter(serverPid: number | undefined, workerPid?: number) {
  const started = performance.now();
  const ownStart = process.cpuUsage();
  const serverStart = serverPid === undefined ? undefined : processCpuSeconds(serverPid);
  const workerStart = workerPid === undefined ? undefined : processCpuSeconds(workerPid);
  const machineStart = machineBusySeconds();
  return {
    stop: () => {
      const wallS = (performance.now() - started) / 1_000;
      const own = process.cpuUsage(ownStart);
      const serverEnd = serverPid === undefined ? undefined : processCpuSeconds(serverPid);
      const workerEnd = workerPid === undefined ? undefined : processCpuSeconds(workerPid);
      const machineEnd = machineBusySeconds();
      const serverS =
        serverStart === undefined || serverEnd === undefined ? undefined : serverEnd - serverStart;
      const workerS =
        workerStart === undefined || workerEnd === undefined ? undefined : workerEnd - workerStart;
      const benchS = (own.user + own.system) / 1e6;
      const otherS =
        machineStart === undefined ||
        machineEnd === undefined ||
        serverS === undefined ||
        (workerPid !== undefined && workerS === undefined)
          ? undefined
          : Math.max(0, machineEnd - machineStart - benchS - serverS - (workerS ?? 0));
      return {
        wallS: Math.round(wallS * 1_000) / 1_000,
        benchCpuS: Math.round(benchS * 1_000) / 1_000,
        /** /proc counts in 10 ms ticks. */
        serverCpuS: serverS === undefined ? null : Math.round(serverS * 100) / 100,
        benchProcessCores: perCore(benchS, wallS),
        serverCores: perCore(serverS, wallS),
        ...(workerPid === undefined ? {} : { workerCores: perCore(workerS, wallS) }),
        otherCores: perCore(otherS, wallS),
      };
    },
  };
}

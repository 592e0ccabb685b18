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
  serverSettings: Readonly<Record<string, number | string>>;
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

/** CPU seconds (user + system) a process has used so far, from /proc (10 ms ticks); undefined elsewhere. */
export function processCpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start at field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
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

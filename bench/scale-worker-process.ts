/**
 * Starts bench/scale-worker.ts in a child process and talks to it: its settings once it polls,
 * its stats on request, and a stop that waits for it to exit (killing it if it will not).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createServer } from 'node:net';
import {
  type FromWorker,
  fromWorkerSchema,
  type ScaleWorkerConfig,
  scaleWorkerConfigVariable,
  type ToWorker,
  type WorkerSettings,
  type WorkerStats,
} from './scale-worker-protocol';

const READY_TIMEOUT_MS = 120_000;
const STATS_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 30_000;

export interface ScaleWorkerProcess {
  readonly pid: number;
  readonly settings: WorkerSettings;
  stats(): Promise<WorkerStats>;
  /** Shuts the worker down and waits for the process to exit; safe to call more than once. */
  stop(): Promise<void>;
}

/** A port nobody listens on right now (the runtime's metrics exporter binds it a moment later). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function startScaleWorker(
  config: Omit<ScaleWorkerConfig, 'metricsPort'>,
  log: (message: string) => void,
): Promise<ScaleWorkerProcess> {
  const full: ScaleWorkerConfig = { ...config, metricsPort: await freePort() };
  const child = fork(require.resolve('./scale-worker'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, [scaleWorkerConfigVariable]: JSON.stringify(full) },
    // The worker's stdout (the Temporal runtime logs there) goes to stderr: stdout is the report's.
    stdio: ['ignore', 2, 'inherit', 'ipc'],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('the worker process did not start');
  const waiting = new Map<number, (stats: WorkerStats) => void>();
  let nextId = 0;
  let failure: string | undefined;
  child.on('message', (raw: unknown) => {
    const message: FromWorker = fromWorkerSchema.parse(raw);
    if (message.type === 'stats') waiting.get(message.id)?.(message.stats);
    if (message.type === 'failed') {
      failure = message.message;
      log(`${config.kind} worker failed: ${message.message}`);
    }
  });
  const toChild = (message: ToWorker) => {
    if (child.connected) child.send(message);
  };
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      toChild({ type: 'stop' });
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited(child);
      clearTimeout(timer);
    })();
    return stopped;
  };
  const settings = await new Promise<WorkerSettings>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${config.kind} worker not ready in time`)),
      READY_TIMEOUT_MS,
    );
    child.on('message', (raw: unknown) => {
      const message = fromWorkerSchema.parse(raw);
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolve(message.settings);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${config.kind} worker exited (${code}) before it was ready: ${failure ?? ''}`));
    });
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return {
    pid,
    settings,
    stop,
    stats: () =>
      new Promise<WorkerStats>((resolve, reject) => {
        const id = ++nextId;
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error(`${config.kind} worker did not answer stats: ${failure ?? 'no reply'}`));
        }, STATS_TIMEOUT_MS);
        waiting.set(id, (stats) => {
          clearTimeout(timer);
          waiting.delete(id);
          resolve(stats);
        });
        toChild({ type: 'stats', id });
      }),
  };
}

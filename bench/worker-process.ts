/**
 * A worker in a child process: started, awaited until it prints its JSON "ready" line, stopped
 * with SIGTERM (SIGKILL if it lingers). Its stderr goes to ours, prefixed, so a failing worker
 * says why; whatever happens, it dies with this process.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface WorkerProcess {
  pid: number | undefined;
  /** What the worker printed in its ready line. */
  ready: Record<string, unknown>;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 15_000;

export async function startWorkerProcess({
  label,
  command,
  args,
  cwd,
  env,
  log,
}: {
  label: string;
  command: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  log: (message: string) => void;
}): Promise<WorkerProcess> {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  // A bench that crashes must not leave a worker polling.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  createInterface({ input: child.stderr! }).on('line', (line) => log(`${label}: ${line}`));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async () => {
    process.off('exit', killOnExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };
  try {
    const ready = await readyLine(child, exited, label);
    return { pid: child.pid, ready, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function readyLine(
  child: ChildProcess,
  exited: Promise<number | null>,
  label: string,
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${label} was not ready after ${READY_TIMEOUT_MS / 1_000} s`)),
      READY_TIMEOUT_MS,
    );
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      try {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        if (parsed.ready !== true) return;
        clearTimeout(timer);
        resolve(parsed);
      } catch {
        // Not the ready line: the worker's own output.
      }
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${label} did not start: ${error.message}`));
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${label} exited (${code}) before it was ready`));
    });
  });
}

/** bench/worker-child.ts in a process of its own, configured by `env` (see there). */
export function startBenchWorker(label: string, env: Record<string, string>, log: (message: string) => void) {
  return startWorkerProcess({
    label,
    command: process.execPath,
    args: ['--import', 'tsx', join(__dirname, 'worker-child.ts')],
    cwd: join(__dirname, '..'),
    env: { ...process.env, ...env },
    log,
  });
}

import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { spawnSourceChild } from '../../support/source-child';
import { appendLedger } from './ledger';

export interface FleetWorker {
  child: ChildProcess;
  /** The worker's own pid, as it reports it. */
  pid: number;
}

export interface FleetArgs {
  address: string;
  namespace: string;
  taskQueue: string;
  ledger: string;
  plansFile: string;
  heartbeatTimeoutMs: number;
  /** Bundling the workflow code takes seconds per process, more on a loaded machine. */
  readyTimeoutMs: number;
}

/**
 * Worker processes of the chaos test on one task queue: started, SIGKILLed, replaced. A worker
 * takes seconds to start (it bundles the workflow code), so spares are kept warm — created and
 * connected, not yet polling — and a kill's replacement polls at once; a new spare starts behind
 * it.
 */
export class WorkerFleet {
  /** The workers polling the task queue. */
  readonly running: FleetWorker[] = [];
  /** How long each process took from spawn to a worker ready to poll. */
  readonly startupMs: number[] = [];
  kills = 0;
  private readonly all: ChildProcess[] = [];
  private spares: Array<Promise<FleetWorker>> = [];

  constructor(private readonly args: FleetArgs) {}

  /** Starts `count` workers polling and `spares` spares behind them; resolves once all are ready. */
  async start({ count, spares }: { count: number; spares: number }): Promise<void> {
    const first = Array.from({ length: count }, () => this.spawnWorker());
    this.spares = Array.from({ length: spares }, () => this.spawnWorker());
    await Promise.all([...first.map((w) => this.promote(w)), ...this.spares]);
  }

  /**
   * SIGKILLs a running worker's whole process group, as a machine crash would, records the kill
   * in the ledger (after the signal: every line the worker wrote comes before it) and lets the
   * spare take its place. Resolves once the replacement polls.
   */
  async killAndReplace(victim: FleetWorker): Promise<void> {
    this.running.splice(this.running.indexOf(victim), 1);
    killGroup(victim.child);
    appendLedger(this.args.ledger, { e: 'kill', pid: victim.pid });
    this.kills += 1;
    const spare = this.spares.shift() ?? this.spawnWorker();
    this.spares.push(this.spawnWorker());
    await this.promote(spare);
  }

  stopAll(): void {
    for (const child of this.all.splice(0)) killGroup(child);
    this.running.splice(0);
    this.spares = [];
  }

  private async promote(starting: Promise<FleetWorker>): Promise<void> {
    const worker = await starting;
    worker.child.stdin?.write('RUN\n');
    this.running.push(worker);
  }

  /** A worker process, created and connected; it polls once told `RUN` on its stdin. */
  private spawnWorker(): Promise<FleetWorker> {
    const { address, namespace, taskQueue, ledger, plansFile, heartbeatTimeoutMs, readyTimeoutMs } =
      this.args;
    const script = path.join(__dirname, 'chaos-worker.ts');
    const child = spawnSourceChild(
      script,
      [address, namespace, taskQueue, ledger, plansFile, String(heartbeatTimeoutMs)],
      { cwd: path.join(__dirname, '../../..'), stdio: ['pipe', 'pipe', 'pipe'], detached: true },
    );
    this.all.push(child);
    // A worker that dies before it reads RUN (killed at the end of a test, or crashed) leaves the
    // write to its stdin failing with EPIPE: an unhandled stream error would take the test process
    // down, while the worker's exit is what the fleet reports.
    child.stdin?.on('error', () => {});
    const spawned = Date.now();
    let stderr = '';
    child.stderr?.on('data', (d) => {
      stderr += String(d);
    });
    const ready = new Promise<FleetWorker>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`worker process not ready within ${readyTimeoutMs} ms: ${stderr}`)),
        readyTimeoutMs,
      );
      child.stdout?.on('data', (d) => {
        const pid = /WORKER READY (\d+)/.exec(String(d))?.[1];
        if (!pid) return;
        clearTimeout(timer);
        this.startupMs.push(Date.now() - spawned);
        resolve({ child, pid: Number(pid) });
      });
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`worker process exited (${code ?? signal}) before it was ready: ${stderr}`));
      });
    });
    // A spare killed at the end of the test is never awaited.
    ready.catch(() => {});
    return ready;
  }
}

function killGroup(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

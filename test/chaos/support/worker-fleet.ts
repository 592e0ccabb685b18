import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { appendLedger } from './ledger';

export interface FleetWorker {
  child: ChildProcess;
  /** The worker's own pid (npx and tsx sit above it in the process group). */
  pid: number;
}

/** Worker processes of the chaos test on one task queue: started, SIGKILLed, replaced. */
export class WorkerFleet {
  readonly ready: FleetWorker[] = [];
  private readonly all: ChildProcess[] = [];
  private readonly starting = new Set<Promise<FleetWorker>>();
  kills = 0;

  constructor(
    private readonly args: {
      address: string;
      namespace: string;
      taskQueue: string;
      ledger: string;
      plansFile: string;
      heartbeatTimeoutMs: number;
      /** Bundling the workflow code takes seconds, more on a loaded machine. */
      readyTimeoutMs: number;
    },
  ) {}

  /** Starts a worker process; resolves once it polls. */
  start(): Promise<FleetWorker> {
    const { address, namespace, taskQueue, ledger, plansFile, heartbeatTimeoutMs, readyTimeoutMs } =
      this.args;
    const script = path.join(__dirname, 'chaos-worker.ts');
    const child = spawn(
      'npx',
      ['tsx', script, address, namespace, taskQueue, ledger, plansFile, String(heartbeatTimeoutMs)],
      { cwd: path.join(__dirname, '../../..'), stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    );
    this.all.push(child);
    let stderr = '';
    child.stderr?.on('data', (d) => {
      stderr += String(d);
    });
    const started = new Promise<FleetWorker>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`worker process not ready within ${readyTimeoutMs} ms: ${stderr}`)),
        readyTimeoutMs,
      );
      child.stdout?.on('data', (d) => {
        const pid = /WORKER READY (\d+)/.exec(String(d))?.[1];
        if (!pid) return;
        clearTimeout(timer);
        const worker = { child, pid: Number(pid) };
        this.ready.push(worker);
        resolve(worker);
      });
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`worker process exited (${code ?? signal}) before it was ready: ${stderr}`));
      });
    });
    this.starting.add(started);
    void started.finally(() => this.starting.delete(started)).catch(() => {});
    return started;
  }

  /** Replacements still starting. */
  async startingSettled(): Promise<void> {
    await Promise.all([...this.starting]);
  }

  /**
   * SIGKILLs a ready worker's whole process group, as a machine crash would, records the kill in
   * the ledger (after the signal: every line the worker wrote comes before it) and starts a
   * replacement.
   */
  killAndReplace(victim: FleetWorker): Promise<FleetWorker> {
    this.ready.splice(this.ready.indexOf(victim), 1);
    killGroup(victim.child);
    appendLedger(this.args.ledger, { e: 'kill', pid: victim.pid });
    this.kills += 1;
    return this.start();
  }

  stopAll(): void {
    for (const child of this.all.splice(0)) killGroup(child);
    this.ready.splice(0);
  }
}

function killGroup(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

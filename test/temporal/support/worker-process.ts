import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { spawnSourceChild } from '../../support/source-child';

/** Bundling the workflow code takes seconds per process, more on a loaded machine. */
const readyTimeoutMs = 120_000;

/**
 * Worker processes a test starts (Node with tsx's loader, `<script> …args`), each resolved once it
 * prints `WORKER READY`; `killAll` SIGKILLs each one's process group, as a machine crash would.
 */
export class WorkerProcesses {
  private readonly children: ChildProcess[] = [];

  start({
    script,
    args,
    label,
  }: {
    script: string;
    args: readonly string[];
    label: string;
  }): Promise<ChildProcess> {
    const child = spawnSourceChild(script, args, {
      cwd: path.join(__dirname, '../../..'),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.children.push(child);
    let stderr = '';
    child.stderr?.on('data', (d) => {
      stderr += String(d);
    });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${label} not ready within ${readyTimeoutMs} ms: ${stderr}`)),
        readyTimeoutMs,
      );
      child.stdout?.on('data', (d) => {
        if (!String(d).includes('WORKER READY')) return;
        clearTimeout(timer);
        resolve(child);
      });
      child.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${label} exited (${code}) before it was ready: ${stderr}`));
      });
    });
  }

  killAll(): void {
    for (const child of this.children.splice(0)) killGroup(child);
  }
}

export function killGroup(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

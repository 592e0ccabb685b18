import type { ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { spawnSourceChild } from '../source-child';

const repoRoot = resolve(__dirname, '../../..');
const crashChild = join(__dirname, 'crash-child.ts');

export interface CrashChild {
  /** The pid of the process running the turn, once it printed READY. */
  ready: Promise<number>;
  /** Resolves when the spawned process tree has exited. */
  exited: Promise<void>;
  stderr(): string;
  /** SIGKILLs the process group this test started (cleanup when something went wrong). */
  killGroup(): void;
}

/**
 * Starts crash-child.ts (Node with tsx's loader) in its own process group; the host reports its
 * own pid in `READY <pid>` for the test to SIGKILL.
 */
export function startCrashChild({
  path,
  ledger,
  turnId,
  background = false,
  readyTimeoutMs = 45_000,
}: {
  path: string;
  ledger: string;
  turnId: string;
  /** Runs the background variant of the crash turn. */
  background?: boolean;
  readyTimeoutMs?: number;
}): CrashChild {
  return startReadyChild({
    script: crashChild,
    args: [path, ledger, turnId, ...(background ? ['background'] : [])],
    readyTimeoutMs,
  });
}

/** Starts `script` in its own process group; it prints `READY <pid>` when the test may kill it. */
export function startReadyChild({
  script,
  args,
  readyTimeoutMs = 45_000,
}: {
  script: string;
  args: string[];
  readyTimeoutMs?: number;
}): CrashChild {
  const child: ChildProcess = spawnSourceChild(script, args, {
    cwd: repoRoot,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((done) => child.once('close', () => done()));
  const ready = new Promise<number>((done, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`${script} did not print READY in ${readyTimeoutMs} ms: ${stderr}`)),
      readyTimeoutMs,
    );
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const match = /^READY (\d+)$/.exec(line);
      if (!match) return;
      clearTimeout(timer);
      done(Number(match[1]));
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      fail(new Error(`${script} exited (${code}) before READY: ${stderr}`));
    });
  });
  return {
    ready,
    exited,
    stderr: () => stderr,
    killGroup: () => {
      if (child.pid === undefined || child.exitCode !== null) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is gone already.
      }
    },
  };
}

/**
 * Stops a process group the way a terminal would: SIGTERM so the server can close its SQLite file
 * cleanly (the Temporal dev server needs ~3 s), then SIGKILL if it is still there after
 * `timeoutMs` (0: SIGKILL at once). Resolves once the leader has exited, so a restart on the same
 * SQLite file cannot race the old process (SQLite would answer "database is locked").
 */
export async function stopProcessGroup({
  pid,
  exited,
  timeoutMs,
  log,
}: {
  pid: number;
  /** Resolves when the group leader has exited. */
  exited: Promise<unknown>;
  timeoutMs: number;
  log: (line: string) => void;
}): Promise<void> {
  if (timeoutMs === 0) {
    // Throwaway state (a test run's temp SQLite file): no need to wait for a clean shutdown.
    if (signalGroup({ pid, signal: 'SIGKILL' })) await exited;
    return;
  }
  if (!signalGroup({ pid, signal: 'SIGTERM' })) return;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = await Promise.race([
    exited.then(() => false),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  if (!timedOut) return;
  log(`Temporal dev server (pid ${pid}) did not stop within ${timeoutMs} ms of SIGTERM; sending SIGKILL`);
  signalGroup({ pid, signal: 'SIGKILL' });
  await exited;
}

/** False when the group no longer exists. */
function signalGroup({ pid, signal }: { pid: number; signal: NodeJS.Signals }): boolean {
  try {
    // A negative pid addresses the whole process group the detached child leads.
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

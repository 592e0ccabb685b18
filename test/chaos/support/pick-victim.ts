import { sleep } from '../../conformance/support';
import { busyPids, readLedger } from './ledger';
import type { FleetWorker, WorkerFleet } from './worker-fleet';

export type KillMode = 'in-flight' | 'just-finished' | 'streaming';

/**
 * Which worker to kill. `in-flight`: one with an effect begun and not ended (a kill there makes
 * an outcome unknown). `just-finished`: the first to finish an effect within `withinMs`, killed
 * at once, so that result may die with it before it reaches the server. `streaming`: the first
 * to start streaming a model response within `withinMs`, a moment later, while its calls are
 * handed over. Falls back to any running worker. Resolves undefined when fewer than two are
 * running: one always stays up.
 */
export async function pickVictim({
  fleet,
  ledger,
  random,
  mode,
  withinMs,
}: {
  fleet: WorkerFleet;
  ledger: string;
  random: () => number;
  mode: KillMode;
  withinMs: number;
}): Promise<FleetWorker | undefined> {
  const ready = () => (fleet.running.length >= 2 ? fleet.running : []);
  if (mode !== 'in-flight') {
    const awaited = mode === 'just-finished' ? 'end' : 'stream';
    const seen = readLedger(ledger).length;
    const deadline = Date.now() + withinMs;
    while (Date.now() < deadline && ready().length > 0) {
      const fresh = readLedger(ledger).slice(seen);
      const hit = fresh.find((l) => l.e === awaited && ready().some((w) => w.pid === l.pid));
      if (hit) {
        // A response's calls complete over its first ~150 ms each (see chaosPlans).
        if (mode === 'streaming') await sleep(random() * 300);
        const victim = ready().find((w) => w.pid === hit.pid);
        if (victim) return victim;
        break;
      }
      await sleep(2);
    }
  }
  const busy = busyPids(readLedger(ledger));
  const inFlight = ready().filter((w) => busy.has(w.pid));
  const pool = inFlight.length > 0 ? inFlight : ready();
  return pool[Math.floor(random() * pool.length)];
}

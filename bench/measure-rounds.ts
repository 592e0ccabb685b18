import { collectGarbage, type Trial } from './measure';

/** One run of a trial, by the wall clock and by the CPU time the process spent on it. */
export interface RunTimes {
  wallMs: number;
  cpuMs: number;
}

/**
 * Runs trials round-robin, as `measureInterleaved` does, but keeps every run's times by round, so
 * a comparison can be made within each round (paired) and by CPU time as well as by the wall
 * clock. On a shared machine the wall clock also counts the time the process waited for a core:
 * for work that never waits itself (an in-process turn on a memory journal), the CPU time is the
 * cost without that noise. Warm-up rounds are not kept.
 *
 * A run pays part of the garbage collection its predecessor left, so what follows a big run is
 * billed some of it: each pair in `swapped` trades places every other round, so neither of the two
 * always comes second.
 */
export async function measureRounds<Name extends string>({
  trials,
  warmup,
  runs,
  swapped = [],
  onProgress,
}: {
  trials: Record<Name, () => Trial>;
  swapped?: ReadonlyArray<readonly [NoInfer<Name>, NoInfer<Name>]>;
  warmup: number;
  runs: number;
  onProgress?: (message: string) => void;
}): Promise<Record<Name, RunTimes>[]> {
  const names = Object.keys(trials) as Name[];
  const rounds: Record<Name, RunTimes>[] = [];
  for (let round = 0; round < warmup + runs; round++) {
    const times = {} as Record<Name, RunTimes>;
    const order =
      round % 2 === 0
        ? names
        : names.map((name) => {
            for (const [a, b] of swapped) {
              if (name === a) return b;
              if (name === b) return a;
            }
            return name;
          });
    for (const name of order) {
      const trial = trials[name]();
      await trial.before?.();
      collectGarbage();
      const cpu = process.cpuUsage();
      const started = performance.now();
      await trial.run();
      const wallMs = performance.now() - started;
      const spent = process.cpuUsage(cpu);
      trial.verify();
      times[name] = { wallMs, cpuMs: (spent.user + spent.system) / 1000 };
    }
    if (round >= warmup) rounds.push(times);
    const done = round + 1;
    if (done === warmup || done % Math.ceil((warmup + runs) / 5) === 0 || done === warmup + runs)
      onProgress?.(`${done}/${warmup + runs} rounds (${warmup} warm-up)`);
  }
  return rounds;
}

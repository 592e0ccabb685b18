import { cpus, loadavg } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** One timed run: `run` is timed, `verify` (untimed) throws unless the run really did its work. */
export interface Trial {
  /** Untimed, before the run: e.g. waiting for the server to settle. */
  before?(): Promise<void>;
  run(): Promise<void>;
  verify(): void;
}

export interface Sample {
  medianMs: number;
  meanMs: number;
  minMs: number;
  maxMs: number;
  runs: number;
}

setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as (options?: { type: 'major' | 'minor' }) => void;
/**
 * A young-generation collection before each run, so one run's garbage is not billed to the next
 * (a forced full GC would be worse: it shrinks the heap and makes the following run slower).
 */
export const collectGarbage = () => gc({ type: 'minor' });

/**
 * Times several trials round-robin (a, b, c, a, b, c, …) so drift in machine load spreads over all
 * of them instead of biasing whichever ran last. Setup (the factory) and verification are untimed.
 * A trial with `repeats` runs that many times in each round, each a sample of its own: for short
 * trials whose noise a comparison magnifies (a fixed cost subtracted and divided by few calls).
 */
export async function measureInterleaved<Name extends string>({
  trials,
  warmup,
  runs,
  repeats = {},
  onProgress,
}: {
  trials: Record<Name, () => Trial>;
  warmup: number;
  runs: number;
  repeats?: Partial<Record<Name, number>>;
  onProgress?: (message: string) => void;
}): Promise<Record<Name, Sample>> {
  const names = Object.keys(trials) as Name[];
  const times = new Map<Name, number[]>(names.map((n) => [n, []]));
  for (let round = 0; round < warmup + runs; round++) {
    for (const name of names) {
      for (let repeat = 0; repeat < (repeats[name] ?? 1); repeat++) {
        const trial = trials[name]();
        await trial.before?.();
        collectGarbage();
        const started = performance.now();
        await trial.run();
        const elapsed = performance.now() - started;
        trial.verify();
        if (round >= warmup) times.get(name)?.push(elapsed);
        if (process.env.BENCH_VERBOSE === '1')
          onProgress?.(`${name} round ${round + 1}: ${elapsed.toFixed(1)} ms`);
      }
    }
    const done = round + 1;
    if (done === warmup || done % Math.ceil((warmup + runs) / 5) === 0 || done === warmup + runs)
      onProgress?.(`${done}/${warmup + runs} rounds (${warmup} warm-up)`);
  }
  const samples = {} as Record<Name, Sample>;
  for (const name of names) samples[name] = summarize(times.get(name) ?? []);
  return samples;
}

export function summarize(timesMs: readonly number[]): Sample {
  const sorted = [...timesMs].sort((a, b) => a - b);
  return {
    medianMs: median(sorted),
    meanMs: sorted.length === 0 ? Number.NaN : sorted.reduce((a, b) => a + b, 0) / sorted.length,
    minMs: sorted[0] ?? Number.NaN,
    maxMs: sorted[sorted.length - 1] ?? Number.NaN,
    runs: sorted.length,
  };
}

function median(sorted: readonly number[]): number {
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Rounds for the JSON report (3 decimals keeps µs-per-call values readable). */
export function round(value: number, digits = 3): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`benchmark verification failed: ${message}`);
}

/** A sample as the JSON report shows it, in milliseconds. */
export function sampleMs(sample: Sample) {
  return {
    median: round(sample.medianMs),
    mean: round(sample.meanMs),
    min: round(sample.minMs),
    max: round(sample.maxMs),
    runs: sample.runs,
  };
}

/** The machine a benchmark ran on; the 1-minute load before and after tells how noisy the run was. */
export function machineInfo(loadBefore: number) {
  return {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    loadAverage: { before: round(loadBefore, 2), after: round(loadavg()[0] ?? 0, 2) },
  };
}

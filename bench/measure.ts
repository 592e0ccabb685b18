/**
 * What every bench shares: timed trials run round-robin, their summaries, a bootstrap interval for
 * a median of paired ratios, the machine a run was on, and the report it prints.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { mulberry32 } from '../test/fuzz/fuzz-random';

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

/** One run of a trial, by the wall clock and by the CPU time the process spent on it. */
export interface RunTimes {
  wallMs: number;
  cpuMs: number;
}

setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as (options?: { type: 'major' | 'minor' }) => void;

/**
 * Runs trials round-robin (a, b, c, a, b, c, …) so drift in machine load spreads over all of them
 * instead of biasing whichever ran last, and keeps every run's times by round, so a comparison can
 * be made within each round (paired) and by CPU time as well as by the wall clock (on a shared
 * machine the wall clock also counts the time the process waited for a core). Setup (the factory)
 * and verification are untimed; a young-generation collection before each run keeps one run's
 * garbage off the next (a forced full GC would shrink the heap and slow the next run). A run still
 * pays part of what its predecessor left, so each pair in `swapped` trades places every other
 * round. A trial with `repeats` runs that many times a round, its times averaged: for short trials
 * whose noise a comparison magnifies. Warm-up rounds are not kept.
 */
export async function measureRounds<Name extends string>({
  trials,
  warmup,
  runs,
  swapped = [],
  repeats = {},
  onProgress,
}: {
  trials: Record<Name, () => Trial>;
  warmup: number;
  runs: number;
  swapped?: ReadonlyArray<readonly [NoInfer<Name>, NoInfer<Name>]>;
  repeats?: Partial<Record<NoInfer<Name>, number>>;
  onProgress?: (message: string) => void;
}): Promise<Record<Name, RunTimes>[]> {
  const names = Object.keys(trials) as Name[];
  const swap = (name: Name) => {
    for (const [a, b] of swapped) {
      if (name === a) return b;
      if (name === b) return a;
    }
    return name;
  };
  const rounds: Record<Name, RunTimes>[] = [];
  for (let round = 0; round < warmup + runs; round++) {
    const times = {} as Record<Name, RunTimes>;
    for (const name of round % 2 === 0 ? names : names.map(swap)) {
      const count = repeats[name] ?? 1;
      const sum = { wallMs: 0, cpuMs: 0 };
      for (let i = 0; i < count; i++) {
        const trial = trials[name]();
        await trial.before?.();
        gc({ type: 'minor' });
        const cpu = process.cpuUsage();
        const started = performance.now();
        await trial.run();
        sum.wallMs += (performance.now() - started) / count;
        const spent = process.cpuUsage(cpu);
        sum.cpuMs += (spent.user + spent.system) / 1000 / count;
        trial.verify();
      }
      times[name] = sum;
    }
    if (round >= warmup) rounds.push(times);
    const done = round + 1;
    if (done === warmup || done % Math.ceil((warmup + runs) / 5) === 0 || done === warmup + runs)
      onProgress?.(`${done}/${warmup + runs} rounds (${warmup} warm-up)`);
  }
  return rounds;
}

/** The wall-clock sample of each trial over the rounds. */
export function wallSamples<Name extends string>(rounds: readonly Record<Name, RunTimes>[]) {
  const names = Object.keys(rounds[0] ?? {}) as Name[];
  return Object.fromEntries(names.map((n) => [n, summarize(rounds.map((r) => r[n].wallMs))])) as Record<
    Name,
    Sample
  >;
}

export function summarize(timesMs: readonly number[]): Sample {
  const sorted = [...timesMs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return {
    medianMs:
      sorted.length === 0
        ? Number.NaN
        : sorted.length % 2 === 1
          ? sorted[mid]!
          : (sorted[mid - 1]! + sorted[mid]!) / 2,
    meanMs: sorted.length === 0 ? Number.NaN : sorted.reduce((a, b) => a + b, 0) / sorted.length,
    minMs: sorted[0] ?? Number.NaN,
    maxMs: sorted[sorted.length - 1] ?? Number.NaN,
    runs: sorted.length,
  };
}

export const median = (values: readonly number[]) => summarize(values).medianMs;

/**
 * How far a median of paired per-round ratios can be trusted: a percentile bootstrap interval
 * (the rounds resampled with replacement, the median taken of each resample). On these shared
 * machines one bench run's median moves by several percent from the next; the interval says
 * whether a target is met by that run or only within its noise. A fixed seed: the same rounds
 * always give the same interval.
 */
export function medianInterval(
  values: readonly number[],
  {
    confidence = 0.9,
    resamples = 2_000,
    seed = 1,
  }: { confidence?: number; resamples?: number; seed?: number } = {},
): { low: number; high: number } {
  if (values.length === 0) return { low: Number.NaN, high: Number.NaN };
  const random = mulberry32(seed);
  const medians: number[] = [];
  const resample: number[] = new Array(values.length);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < values.length; i++)
      resample[i] = values[Math.floor(random() * values.length)] as number;
    medians.push(median(resample));
  }
  medians.sort((a, b) => a - b);
  const tail = (1 - confidence) / 2;
  return {
    low: medians[Math.floor(tail * (resamples - 1))] as number,
    high: medians[Math.ceil((1 - tail) * (resamples - 1))] as number,
  };
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

/** Writes a bench's report to bench/results/<file> (git-ignored) and prints it on stdout. */
export async function writeReport(file: string, report: unknown): Promise<void> {
  const out = path.join(__dirname, 'results', file);
  await mkdir(path.dirname(out), { recursive: true });
  await writeFile(out, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

/** Runs a bench's main, exiting non-zero with the error when it fails. */
export function runBench(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}

/** A progress line on stderr (stdout is the report's). */
export const logger = (prefix: string) => (message: string) =>
  process.stderr.write(`[${prefix}] ${message}\n`);

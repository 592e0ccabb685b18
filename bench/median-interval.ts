import { mulberry32 } from '../test/fuzz/fuzz-random';
import { summarize } from './measure';

/**
 * How far a median of paired per-round ratios can be trusted: a percentile bootstrap interval
 * (the rounds resampled with replacement, the median taken of each resample). On these shared
 * machines one bench run's median moves by several percent from the next; the interval says
 * whether a target is met by that run or only within its noise. Resampling uses a fixed seed, so
 * the same rounds always give the same interval.
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
    medians.push(summarize(resample).medianMs);
  }
  medians.sort((a, b) => a - b);
  const tail = (1 - confidence) / 2;
  return {
    low: medians[Math.floor(tail * (resamples - 1))] as number,
    high: medians[Math.ceil((1 - tail) * (resamples - 1))] as number,
  };
}

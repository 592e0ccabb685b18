import { z } from 'zod';

const seedSchema = z.coerce.number().int().min(0).max(0xffff_ffff);

/**
 * The run's seed: `FUZZ_SEED` when set (to replay a failure), else a fresh one. Every failure
 * message carries it, so a red run can be repeated exactly with `FUZZ_SEED=<seed>`.
 */
export function fuzzSeed(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const given = env.FUZZ_SEED?.trim();
  if (!given) return Math.floor(Math.random() * 0x1_0000_0000);
  const parsed = seedSchema.safeParse(given);
  if (!parsed.success)
    throw new Error(`FUZZ_SEED must be an integer from 0 to 4294967295, not ${JSON.stringify(given)}`);
  return parsed.data;
}

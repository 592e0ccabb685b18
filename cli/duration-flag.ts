import { z } from 'zod';

const units: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** A duration flag: `500ms`, `30s`, `5m`, `1h`, or a bare number of milliseconds. */
export const durationFlagSchema = z
  .string()
  .regex(/^\d+(\.\d+)?(ms|s|m|h)?$/, 'expected a duration such as 500ms, 30s, 5m or 1h')
  .transform((text) => {
    const [, amount = '0', unit = 'ms'] = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text) ?? [];
    return Math.round(Number(amount) * (units[unit] ?? 1));
  })
  .pipe(z.number().int().positive('must be more than 0'));

/** A count flag: a positive whole number. */
export const countFlagSchema = z
  .string()
  .regex(/^\d+$/, 'expected a positive whole number')
  .transform(Number)
  .pipe(z.number().int().positive('must be at least 1'));

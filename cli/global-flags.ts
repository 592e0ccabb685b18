import { z } from 'zod';
import { parseFlags } from './parse-flags';

/** Flags every command takes; they override the environment and the Temporal CLI profile. */
export const globalFlagsSchema = z.object({
  json: z.boolean().default(false),
  address: z
    .string()
    .regex(/^[^\s:]+:\d{1,5}$/, 'expected host:port, e.g. 127.0.0.1:7233')
    .optional(),
  namespace: z.string().min(1).optional(),
  taskQueue: z.string().min(1).max(1000).optional(),
});
export type GlobalFlags = z.infer<typeof globalFlagsSchema>;

export function parseGlobalFlags({ values }: { values: Record<string, unknown> }): GlobalFlags {
  return parseFlags({
    schema: globalFlagsSchema,
    values: pick({ values, keys: Object.keys(globalFlagsSchema.shape) }),
  });
}

function pick({
  values,
  keys,
}: {
  values: Record<string, unknown>;
  keys: string[];
}): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => values[k] !== undefined).map((k) => [k, values[k]]));
}

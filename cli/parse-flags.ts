import type { z } from 'zod';
import { quoted } from '../core/schema/format-issues';
import { CliError } from './cli-error';
import { exitCodes } from './exit-codes';

/**
 * Checks flag values (as commander parsed them: strings, booleans) against a zod schema; a bad
 * value is a usage error naming the flag as typed (`--max-tool-calls`, not `maxToolCalls`).
 */
export function parseFlags<S extends z.ZodType>({
  schema,
  values,
}: {
  schema: S;
  values: Record<string, unknown>;
}): z.infer<S> {
  const parsed = schema.safeParse(values);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const key = issue.path[0];
    const flag = typeof key === 'string' ? flagName({ key }) : 'flags';
    const given = typeof key === 'string' ? values[key] : undefined;
    return `${flag}: ${issue.message}${given === undefined ? '' : ` (got ${quoted(given)})`}`;
  });
  throw new CliError(`${problems.join('\n')}\nSee --help for the flags and their values.`, {
    exitCode: exitCodes.usage,
  });
}

export function flagName({ key }: { key: string }): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

import type { z } from 'zod';
import { DurableTurnsError, hasMarker } from '../core/errors/durable-turns-error';
import { formatIssues } from '../core/schema/format-issues';

const marker = Symbol.for('durable-turns.api-error');

/** An answer other than 2xx, with a message that says what to do about it. */
export class ApiError extends DurableTurnsError {
  readonly [marker] = true;
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message, { code: `http-${status}` });
    this.name = 'ApiError';
  }

  static override isInstance(error: unknown): error is ApiError {
    return hasMarker(error, marker);
  }
}

/** `value` parsed by `schema`, or a 400 naming each field that is wrong and why. */
export function parseInput<S extends z.ZodType>({
  schema,
  value,
  where,
}: {
  schema: S;
  value: unknown;
  where: 'query' | 'path' | 'body' | 'header';
}): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ApiError(400, `malformed ${where}: ${formatIssues(parsed.error, { root: where })}`);
}

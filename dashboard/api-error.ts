import type { z } from 'zod';

/** An answer other than 2xx, with a message that says what to do about it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
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
  throw new ApiError(
    400,
    `malformed ${where}: ${parsed.error.issues.map((i) => `${i.path.join('.') || where}: ${i.message}`).join('; ')}`,
  );
}

import type { z } from 'zod';

/** How much of a bad input an error quotes: the rule and where, never the whole input back. */
const maxIssues = 3;
const maxMessageChars = 200;

/**
 * A zod error in one line for people: each issue as `path: message` (`root` where the path is
 * empty), at most three of them and each cut short, so an error never echoes a huge input whole.
 */
export function formatIssues(error: z.ZodError, { root = 'input' }: { root?: string } = {}): string {
  const shown = error.issues.slice(0, maxIssues).map((issue) => {
    const where = issue.path.map(String).join('.') || root;
    const message =
      issue.message.length > maxMessageChars ? `${issue.message.slice(0, maxMessageChars)}…` : issue.message;
    return `${where}: ${message}`;
  });
  const more = error.issues.length - shown.length;
  return more > 0 ? `${shown.join('; ')}; and ${more} more` : shown.join('; ');
}

/** How much of a value an error quotes back. */
const maxQuotedChars = 64;

/**
 * A value as an error quotes it: JSON, cut to its first characters and saying how long it was, so
 * a 10 KB id or reason never comes back whole.
 */
export function quoted(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  if (text.length <= maxQuotedChars) return JSON.stringify(value) ?? String(value);
  return `${JSON.stringify(text.slice(0, maxQuotedChars))}… (${text.length} characters)`;
}

/** The value as the schema parses it, or an error that says, in one line, what is malformed. */
export function parsedOrThrow<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`malformed ${what}: ${formatIssues(parsed.error, { root: what })}`);
  return parsed.data;
}

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

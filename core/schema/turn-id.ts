import { z } from 'zod';
import { quoted } from './format-issues';

/**
 * Turn and conversation ids name workflows, journal rows, idempotency keys and search attribute
 * values, and operators type them: they must be unambiguous. The rule is stated in the message so
 * a caller can fix a bad id without reading code.
 */
const idRule =
  '1 to 256 characters: letters, digits and - _ . : / @ + = # ~ (no spaces or control characters)';
const idPattern = /^[A-Za-z0-9\-_.:/@+=#~]{1,256}$/;

function idSchema(what: string) {
  return z.string().refine((id) => idPattern.test(id), {
    error: (issue) => `${what} ${quoted(issue.input)} is not valid: use ${idRule}`,
  });
}

export const turnIdSchema = idSchema('turn id');
export const conversationIdSchema = idSchema('conversation id');

/** Throws an Error naming the rule when `id` is not a valid turn id. */
export function assertTurnId(id: unknown, what = 'turn id'): asserts id is string {
  const parsed = (what === 'turn id' ? turnIdSchema : idSchema(what)).safeParse(id);
  if (!parsed.success) throw new Error(parsed.error.issues[0]?.message ?? `invalid ${what}`);
}

import { RE2JS } from 're2js';
import { z } from 'zod';
import { decisionViaSchema } from './decision-via';

/** A regex a grant tests is short, and only against short values: a grant runs inside the turn (on Temporal, in the workflow). */
export const maxPatternChars = 200;
export const maxMatchedChars = 4_096;

/**
 * One condition on a call's arguments: the value at `path` (dot-separated keys and array indexes
 * into the arguments, e.g. `path` or `options.mode` or `files.0`) equals a JSON value, or is a
 * string the regular expression `pattern` matches (write `^…$` to match it whole). A value that is
 * absent, or a string longer than `maxMatchedChars`, matches nothing: a grant fails closed.
 *
 * Patterns are RE2 (re2js): matched in time linear in the value, whatever the pattern. The values
 * come from the model's arguments, and a backtracking engine given `^([a-z]+-?)+$` and 31
 * characters took 6 s — inside a workflow task, past its deadlock limit, on every retry.
 * RE2 has no backreferences or lookaround: such a pattern is refused when the grant is given.
 */
export const argumentMatcherSchema = z
  .object({
    path: z.string().min(1).max(200),
    equals: z.unknown().optional(),
    pattern: z.string().min(1).max(maxPatternChars).optional(),
  })
  .refine((m) => (m.equals !== undefined) !== (m.pattern !== undefined), {
    message: 'a matcher has either `equals` or `pattern`',
  })
  .refine((m) => m.pattern === undefined || compiles(m.pattern), {
    message: 'the pattern is not a valid RE2 regular expression (no backreferences or lookaround)',
    path: ['pattern'],
  });
export type ArgumentMatcher = z.infer<typeof argumentMatcherSchema>;

export const maxGrantIdChars = 300;
/**
 * The most grants a turn, or a conversation, takes while they are in force (a turn may start with
 * twice as many: its own and its conversation's). Each one is checked on every call that waits.
 */
export const maxGrantsInForce = 100;
export const grantIdSchema = z.string().min(1).max(maxGrantIdChars);

/**
 * A signed decision, grant or revocation (a turn with `approvals.signed` takes no other): when it
 * was signed (epoch ms) and `<key id>.<base64url HMAC-SHA256>` over it (durable-turns/codec's `signApproval`).
 */
export const approvalSignatureFields = {
  issuedAt: z.number().int().nonnegative().optional(),
  signature: z.string().min(1).max(200).optional(),
};

/**
 * "Always allow": calls of `toolName` whose arguments meet every matcher run without asking, for the
 * rest of the turn (`turn`) or of the conversation (`conversation`: every later turn starts with
 * it), until revoked. Each call it lets run is recorded as approved by the grant (`grantId`), with
 * the grant's `by`. Recorded in the journal (`approval.granted`, `approval.revoked`) and shown to
 * operators with the turn's state.
 */
export const approvalGrantSchema = z.object({
  grantId: grantIdSchema,
  toolName: z.string().min(1).max(200),
  match: z.array(argumentMatcherSchema).max(20).default([]),
  scope: z.enum(['turn', 'conversation']).default('turn'),
  reason: z.string().max(2_000).optional(),
  by: z.string().min(1).max(200).optional(),
  via: decisionViaSchema.optional(),
  /** When the turn (or the conversation) took the grant. */
  at: z.number().optional(),
  ...approvalSignatureFields,
});
export type ApprovalGrant = z.infer<typeof approvalGrantSchema>;
export type ApprovalGrantInput = z.input<typeof approvalGrantSchema>;

/** Ends a grant: calls it let run stay approved; the next ones ask again. */
export const grantRevocationSchema = z.object({
  grantId: grantIdSchema,
  by: z.string().min(1).max(200).optional(),
  via: decisionViaSchema.optional(),
  ...approvalSignatureFields,
});
export type GrantRevocation = z.infer<typeof grantRevocationSchema>;

/** Whether a grant covers this call: its tool, and every matcher holds on its arguments. */
export function grantCovers(grant: ApprovalGrant, toolName: string, input: unknown): boolean {
  if (grant.toolName !== toolName) return false;
  return grant.match.every((matcher) => matches(matcher, valueAt(input, matcher.path)));
}

function matches(matcher: ArgumentMatcher, value: unknown): boolean {
  if (value === undefined) return false;
  if (matcher.pattern !== undefined) {
    if (typeof value !== 'string' || value.length > maxMatchedChars) return false;
    let regex = regexes.get(matcher.pattern);
    if (!regex) {
      regex = RE2JS.compile(matcher.pattern);
      regexes.set(matcher.pattern, regex);
    }
    return regex.matcher(value).find();
  }
  return sameJson(matcher.equals, value);
}

// Patterns are few and tested on every covered call: compiled once (a matcher per test keeps no state between them).
const regexes = new Map<string, RE2JS>();

function valueAt(input: unknown, path: string): unknown {
  let value = input;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Deep equality of JSON values (key order does not matter). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every(
    (key) =>
      Object.hasOwn(b, key) &&
      sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}

function compiles(pattern: string): boolean {
  try {
    RE2JS.compile(pattern);
    return true;
  } catch {
    return false;
  }
}

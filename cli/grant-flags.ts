import { type ArgumentMatcher, argumentMatcherSchema, formatIssues } from '../core';
import { CliError } from './cli-error';
import { exitCodes } from './exit-codes';

/** Commander's collector for a flag that may be given more than once: every value, in order. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** How `--help` describes the matcher flags (on `grant` and `approve --always` alike). */
export const matchFlagsHelp = {
  match:
    'only calls whose argument at path (dot-separated: target, options.mode, files.0) equals value; value is read as JSON when it parses (5, true, "5", {"a":1}), else as the text itself; repeat for more (all must hold)',
  matchPattern:
    'only calls whose argument at path is a string this regular expression matches (write ^…$ to match it whole); repeat for more',
};

/**
 * `--match path=value` and `--match-pattern path=regex` as a grant's matchers, checked before
 * anything is sent: a value without `=`, an empty path or a regex that does not compile is the
 * command line's mistake (a usage error naming the flag).
 */
export function matchersOf({
  equals = [],
  patterns = [],
}: {
  equals?: string[];
  patterns?: string[];
}): ArgumentMatcher[] {
  return [
    ...equals.map((given) => {
      const { path, value } = split({ given, flag: '--match', example: 'target=staging' });
      return checked({ given, flag: '--match', matcher: { path, equals: jsonOrText(value) } });
    }),
    ...patterns.map((given) => {
      const { path, value } = split({ given, flag: '--match-pattern', example: "'target=^staging-'" });
      return checked({ given, flag: '--match-pattern', matcher: { path, pattern: value } });
    }),
  ];
}

/** The value as JSON when it parses (so `5` is a number, `"5"` a string), else the text as typed. */
export function jsonOrText(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function split({ given, flag, example }: { given: string; flag: string; example: string }) {
  const at = given.indexOf('=');
  if (at <= 0)
    throw new CliError(`${flag} ${JSON.stringify(given)}: give it as path=value, e.g. ${flag} ${example}`, {
      exitCode: exitCodes.usage,
    });
  return { path: given.slice(0, at), value: given.slice(at + 1) };
}

function checked({
  given,
  flag,
  matcher,
}: {
  given: string;
  flag: string;
  matcher: ArgumentMatcher;
}): ArgumentMatcher {
  const parsed = argumentMatcherSchema.safeParse(matcher);
  if (parsed.success) return parsed.data;
  throw new CliError(`${flag} ${JSON.stringify(given)}: ${formatIssues(parsed.error, { root: 'matcher' })}`, {
    exitCode: exitCodes.usage,
  });
}

import { CliError } from './cli-error';
import { exitCodes } from './exit-codes';
import { jsonOrText, matchersOf } from './grant-flags';

const refusal = (run: () => unknown): CliError => {
  try {
    run();
  } catch (error) {
    if (error instanceof CliError) return error;
    throw error;
  }
  throw new Error('not refused');
};

describe("a grant's matchers on the command line", () => {
  test('--match path=value: the value is JSON when it parses as JSON, else the text as typed; the path splits at the first =', () => {
    expect(
      matchersOf({
        equals: ['target=staging', 'replicas=3', 'label="3"', 'options.dry=true', 'query=a=b'],
      }),
    ).toEqual([
      { path: 'target', equals: 'staging' },
      { path: 'replicas', equals: 3 },
      { path: 'label', equals: '3' },
      { path: 'options.dry', equals: true },
      { path: 'query', equals: 'a=b' },
    ]);
    expect(jsonOrText('{"a":[1]}')).toEqual({ a: [1] });
    expect(jsonOrText('{a:1}')).toBe('{a:1}');
  });

  test('--match-pattern path=regex: a regular expression on a string argument, kept as typed', () => {
    expect(matchersOf({ patterns: ['target=^prod-[a-z]+$'] })).toEqual([
      { path: 'target', pattern: '^prod-[a-z]+$' },
    ]);
  });

  test('a value without path=, or a regex that does not compile, is a usage error naming the flag, before anything is sent', () => {
    const noPath = refusal(() => matchersOf({ equals: ['staging'] }));
    expect(noPath.exitCode).toBe(exitCodes.usage);
    expect(noPath.message).toBe('--match "staging": give it as path=value, e.g. --match target=staging');
    expect(refusal(() => matchersOf({ equals: ['=staging'] })).message).toMatch(
      /^--match "=staging": give it as path=value/,
    );
    const badRegex = refusal(() => matchersOf({ patterns: ['target=(['] }));
    expect(badRegex.exitCode).toBe(exitCodes.usage);
    expect(badRegex.message).toBe(
      '--match-pattern "target=([": pattern: the pattern is not a valid RE2 regular expression (no backreferences or lookaround)',
    );
  });
});

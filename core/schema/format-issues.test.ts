import { z } from 'zod';
import { formatIssues, quoted } from './format-issues';

const schema = z.object({ a: z.string(), b: z.number(), c: z.boolean(), d: z.string() });

test('each issue as path: message, the root named where the path is empty', () => {
  expect(formatIssues(z.string().safeParse(1).error as z.ZodError, { root: 'turn id' })).toMatch(
    /^turn id: /,
  );
  expect(formatIssues(z.object({ a: z.string() }).safeParse({ a: 1 }).error as z.ZodError)).toMatch(/^a: /);
});

test('at most three issues, then how many more', () => {
  const text = formatIssues(schema.safeParse({}).error as z.ZodError);
  expect(text.split('; ')).toHaveLength(4);
  expect(text).toMatch(/; and 1 more$/);
});

test('a long message is cut short rather than echoed whole', () => {
  const long = z.string().refine(() => false, { message: 'x'.repeat(5_000) });
  expect(formatIssues(long.safeParse('v').error as z.ZodError).length).toBeLessThan(250);
});

test('a value is quoted whole when short, else its start and its length', () => {
  expect(quoted('turn-1')).toBe('"turn-1"');
  expect(quoted(42)).toBe('42');
  const long = quoted('x'.repeat(10_000));
  expect(long).toBe(`"${'x'.repeat(64)}"… (10000 characters)`);
});

import { type ApprovalGrant, approvalGrantSchema, grantCovers } from './approval-grant';

const grant = (match: unknown[]): ApprovalGrant =>
  approvalGrantSchema.parse({ grantId: 'g', toolName: 'deploy', match });

describe('a grant covers a call', () => {
  test('of its tool whose arguments meet every matcher: a JSON value at a path (key order aside), or a pattern', () => {
    const g = grant([
      { path: 'options', equals: { dry: true, mode: 'fast' } },
      { path: 'targets.0', pattern: '^staging-' },
    ]);
    expect(grantCovers(g, 'deploy', { options: { mode: 'fast', dry: true }, targets: ['staging-eu'] })).toBe(
      true,
    );
    expect(grantCovers(g, 'deploy', { options: { mode: 'fast', dry: true }, targets: ['prod-eu'] })).toBe(
      false,
    );
    expect(grantCovers(g, 'build', { options: { mode: 'fast', dry: true }, targets: ['staging-eu'] })).toBe(
      false,
    );
  });

  test('fails closed: an absent value, a pattern on a non-string, a value longer than the bound', () => {
    const g = grant([{ path: 'target', pattern: '^s' }]);
    expect(grantCovers(g, 'deploy', {})).toBe(false);
    expect(grantCovers(g, 'deploy', { target: 5 })).toBe(false);
    expect(grantCovers(g, 'deploy', { target: `s${'x'.repeat(5_000)}` })).toBe(false);
  });

  test('a pattern runs in linear time, so the model cannot stall a turn with its arguments (a backtracking engine takes hours on this)', () => {
    const g = grant([{ path: 'slug', pattern: '^([a-z0-9]+[-.]?)+$' }]);
    expect(grantCovers(g, 'deploy', { slug: `${'a'.repeat(4_000)}!` })).toBe(false);
    expect(grantCovers(g, 'deploy', { slug: 'my-app.v2' })).toBe(true);
  });

  test('a pattern RE2 cannot run (a backreference, lookaround) is refused when the grant is given', () => {
    for (const pattern of ['(a)\\1', '^(?=prod)']) {
      const parsed = approvalGrantSchema.safeParse({
        grantId: 'g',
        toolName: 'deploy',
        match: [{ path: 'p', pattern }],
      });
      expect(parsed.error?.issues[0]?.message).toMatch(/not a valid RE2 regular expression/);
    }
  });
});

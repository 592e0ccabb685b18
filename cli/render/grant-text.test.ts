import pc from 'picocolors';
import type { ApprovalGrant, JournalEntry, TurnStateView } from '../../core';
import { decisionOf, decisionOfView, decisionText } from './decision-text';
import { coveredText, grantLines } from './grant-text';
import { progressLines } from './progress-lines';
import { stateLines } from './state-lines';
import { applyTurnEvent, emptyTurnDisplay } from './turn-display';

const colors = pc.createColors(false);
const context = { prefix: 'durable-turns' };
const at = Date.UTC(2026, 11, 6, 7, 12, 3);
const staging: ApprovalGrant = {
  grantId: 'staging-only',
  toolName: 'deploy',
  match: [
    { path: 'target', equals: 'staging' },
    { path: 'options.mode', pattern: '^dry' },
  ],
  scope: 'turn',
  by: 'alice',
  via: 'cli',
  at,
};

/** The plain log's lines for these entries, folded in order as `run` and `watch` fold them. */
function logOf(entries: JournalEntry[]): string[] {
  const display = emptyTurnDisplay({ turnId: 't1', transcriptOnly: true });
  return entries.flatMap((entry, i) => {
    const event = { kind: 'entry' as const, seq: i + 1, entry };
    applyTurnEvent({ display, event });
    return progressLines({ display, event, colors, context });
  });
}

describe('grants as the CLI says them', () => {
  test('what a grant covers: its tool, and every matcher (a JSON value, or a regex)', () => {
    expect(coveredText(staging)).toBe('deploy calls where target = "staging" and options.mode ~ /^dry/');
    expect(coveredText({ toolName: 'deploy', match: [] })).toBe('every deploy call');
  });

  test('a call a grant let run says which grant, and who took it; one approved with "always" too', () => {
    const decided = (fields: Partial<Extract<JournalEntry, { type: 'tool.approval_decided' }>>) =>
      decisionOf({ type: 'tool.approval_decided', toolCallId: 'c1', approved: true, ...fields });
    expect(decisionText({ decision: decided({ grantId: 'staging-only', by: 'alice' }) })).toBe(
      'approved by grant staging-only (alice)',
    );
    expect(decisionText({ decision: decided({ grantId: 'g' }), brief: true })).toBe('approved by grant g');
    expect(
      decisionText({
        decision: decided({ grantId: 't1/c1', by: 'bob', input: { target: 'qa' }, reason: 'ok' }),
      }),
    ).toBe('approved by grant t1/c1 (bob) (arguments edited: {"target":"qa"}): ok');
  });

  test('the log says when a grant was taken and revoked, by whom, and what it covers', () => {
    expect(
      logOf([
        { type: 'approval.granted', grant: { ...staging, reason: 'release day' } },
        { type: 'approval.revoked', grantId: 'staging-only', by: 'bob', via: 'dashboard', at },
      ]),
    ).toEqual([
      '  granted staging-only by alice via cli: deploy calls where target = "staging" and options.mode ~ /^dry/ run without asking (release day)',
      '  revoked grant staging-only by bob via dashboard: the calls it allowed ask again',
    ]);
  });

  test("show lists the grants in force with who took them, when, and the command that revokes each; a call's line says the grant that approved it", () => {
    const view: TurnStateView = {
      turnId: 't1',
      phase: 'tools',
      status: 'running',
      responseIndex: 0,
      currentWave: 0,
      calls: [
        {
          toolCallId: 'd1',
          toolName: 'deploy',
          wave: 0,
          phase: 'done',
          attempts: 1,
          status: 'ok',
          decision: { approved: true, by: 'alice', via: 'cli', grantId: 'staging-only' },
        },
      ],
      background: [],
      usage: { inputTokens: 1, outputTokens: 1 },
      startedAt: at,
      spent: { modelResponses: 1, toolCalls: 1, tokens: 2, wallTimeMs: 10 },
      budgetLeft: {},
      outputs: 1,
      grants: [staging],
    };
    const lines = stateLines({ view, colors, context });
    expect(lines).toContain('  wave 1  deploy #d1  ok · approved by grant staging-only (alice) · attempt 1');
    expect(lines).toEqual(
      expect.arrayContaining([
        'grants in force (its calls run without asking):',
        '  staging-only  deploy calls where target = "staging" and options.mode ~ /^dry/  by alice via cli at 2026-12-06 07:12:03 UTC',
        '      revoke: durable-turns revoke t1 staging-only',
      ]),
    );
    // A finished turn's grants can no longer be revoked: no command for them.
    expect(grantLines({ grants: [staging], turnId: 't1', colors, context, ended: true })).toHaveLength(2);
    expect(grantLines({ grants: undefined, turnId: 't1', colors, context })).toEqual([]);
  });

  test("a running turn's state says an approval with edited arguments or an answer; not a rejection it cannot tell from an expiry", () => {
    expect(decisionOfView({ decision: { approved: true, by: 'alice', edited: true } })).toEqual({
      approved: true,
      by: 'alice',
      edited: true,
    });
    expect(
      decisionText({
        decision: decisionOfView({ decision: { approved: true, edited: true } }) ?? { approved: false },
      }),
    ).toBe('approved, arguments edited');
    expect(decisionOfView({ decision: { approved: false, by: 'bob' }, status: 'ok' })).toEqual({
      approved: false,
      responded: true,
      by: 'bob',
    });
    expect(decisionOfView({ decision: { approved: false, reason: '1h' }, status: 'error' })).toBeUndefined();
  });
});

import { randomBytes } from 'node:crypto';
import type { ApprovalEvent } from '../core';
import { parseApprovalKeys } from './approval-keys';
import {
  approvalActivities,
  approvalSignatureMaxAgeMs,
  signApproval,
  verifyApproval,
} from './approval-signature';

const keys = parseApprovalKeys(`a1:${randomBytes(32).toString('base64')}`);
const otherKeys = parseApprovalKeys(`a1:${randomBytes(32).toString('base64')}`);
const turnId = 'turn-1';
const now = 1_800_000_000_000;

const decision: ApprovalEvent = {
  kind: 'approval',
  toolCallId: 'c1',
  decision: 'approve',
  reason: 'looks right',
  input: { path: '/tmp/a', options: { force: false } },
  by: 'alice',
  via: 'cli',
  remember: { scope: 'turn', match: [{ path: 'path', pattern: '^/tmp/' }] },
};
const grant: ApprovalEvent = {
  kind: 'grant',
  grant: { grantId: 'g1', toolName: 'write', match: [], scope: 'turn', by: 'alice' },
};
const revoke: ApprovalEvent = { kind: 'revoke', grantId: 'g1', by: 'alice', via: 'api' };

const verify = (event: ApprovalEvent, options: { at?: number; turn?: string } = {}) =>
  verifyApproval({ turnId: options.turn ?? turnId, event, keys, now: options.at ?? now });

describe('signed approvals', () => {
  test.each([decision, grant, revoke])('a $kind signed with a key the worker holds verifies', (event) => {
    const signed = signApproval({ turnId, event, keys, now });
    const fields = signed.kind === 'grant' ? signed.grant : signed;
    expect(fields.issuedAt).toBe(now);
    expect(fields.signature).toMatch(/^a1\.[A-Za-z0-9_-]{43}$/);
    expect(verify(signed)).toBeUndefined();
  });

  test.each<[string, (e: Record<string, unknown>) => void]>([
    ['the call', (e) => (e.toolCallId = 'c2')],
    ['the decision', (e) => (e.decision = 'reject')],
    ['the reason', (e) => (e.reason = 'looks fine')],
    [
      'an edited argument, deep inside',
      (e) => ((e.input as { options: { force: boolean } }).options.force = true),
    ],
    ['the approver', (e) => (e.by = 'mallory')],
    ['through what', (e) => (e.via = 'dashboard')],
    ['the grant it makes', (e) => ((e.remember as { match: unknown[] }).match = [])],
    ['a field added', (e) => (e.output = 'answered')],
    ['issuedAt (made fresh again)', (e) => (e.issuedAt = (e.issuedAt as number) + 1)],
  ])('changing %s after signing is refused', (_what, tamper) => {
    const signed = signApproval({ turnId, event: decision, keys, now }) as unknown as Record<string, unknown>;
    tamper(signed);
    expect(verify(signed as unknown as ApprovalEvent)).toMatch(/does not match/);
  });

  test('a grant changed after signing, or a signature moved to another kind, is refused', () => {
    const signed = signApproval({ turnId, event: grant, keys, now });
    if (signed.kind !== 'grant') throw new Error('a grant');
    expect(verify({ ...signed, grant: { ...signed.grant, toolName: 'delete' } })).toMatch(/does not match/);
    const { grantId, by, signature, issuedAt } = signed.grant;
    expect(verify({ kind: 'revoke', grantId, by, signature, issuedAt } as ApprovalEvent)).toMatch(
      /does not match/,
    );
  });

  test('a signature holds for its turn only', () => {
    const signed = signApproval({ turnId, event: decision, keys, now });
    expect(verify(signed, { turn: 'turn-2' })).toMatch(/does not match/);
  });

  test("a signature older than the bound, or from far ahead of the worker's clock, is refused", () => {
    const signed = signApproval({ turnId, event: decision, keys, now });
    expect(verify(signed, { at: now + approvalSignatureMaxAgeMs })).toBeUndefined();
    expect(verify(signed, { at: now + approvalSignatureMaxAgeMs + 1_000 })).toMatch(
      /signed 601 s ago; a signature holds 10 minutes/,
    );
    expect(verify(signed, { at: now - 5 * 60_000 })).toMatch(/ahead of this worker's clock/);
  });

  test('an unknown key id, another key of the same id, or no signature at all is refused', () => {
    const foreign = signApproval({
      turnId,
      event: decision,
      keys: parseApprovalKeys(`zz:${randomBytes(32).toString('base64')}`),
      now,
    });
    expect(verify(foreign)).toMatch(/key id "zz", which this worker does not hold/);
    expect(verify(signApproval({ turnId, event: decision, keys: otherKeys, now }))).toMatch(/does not match/);
    expect(verify(decision)).toBe('it is not signed');
    const signed = signApproval({ turnId, event: decision, keys, now }) as { signature?: string };
    expect(
      verify({
        ...decision,
        issuedAt: now,
        signature: signed.signature?.replace('a1.', ''),
      } as ApprovalEvent),
    ).toMatch(/is not `<key id>.<mac>`/);
  });

  test('a rotated key still verifies what the old one signed', () => {
    const old = signApproval({ turnId, event: revoke, keys, now });
    const rotated = parseApprovalKeys(
      `a2:${randomBytes(32).toString('base64')},a1:${keys.active.key.toString('base64')}`,
    );
    expect(verifyApproval({ turnId, event: old, keys: rotated, now })).toBeUndefined();
  });

  test("a worker without keys refuses a signed event, saying why, in the activity's answer", async () => {
    const signed = signApproval({ turnId, event: decision, keys });
    await expect(approvalActivities(undefined).verifyApproval({ turnId, event: signed })).resolves.toEqual({
      refused: expect.stringMatching(/holds no approval keys .*DURABLE_TURNS_APPROVAL_KEYS/),
    });
    await expect(approvalActivities(keys).verifyApproval({ turnId, event: signed })).resolves.toEqual({});
  });
});

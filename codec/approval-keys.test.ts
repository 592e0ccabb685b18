import { randomBytes } from 'node:crypto';
import {
  ApprovalKeysError,
  approvalKeysFromEnv,
  approvalKeysOption,
  parseApprovalKeys,
} from './approval-keys';

const key = randomBytes(32).toString('base64');
const other = randomBytes(32).toString('base64');

describe('DURABLE_TURNS_APPROVAL_KEYS', () => {
  test('the first key signs; every listed key verifies', () => {
    const keys = parseApprovalKeys(`a2:${key}, a1:${other}`);
    expect(keys.active.id).toBe('a2');
    expect([...keys.byId.keys()]).toEqual(['a2', 'a1']);
  });

  test('unset or empty means nothing is signed; `false` means none whatever the environment says', () => {
    expect(approvalKeysFromEnv({})).toBeUndefined();
    expect(approvalKeysFromEnv({ DURABLE_TURNS_APPROVAL_KEYS: ' ' })).toBeUndefined();
    expect(approvalKeysFromEnv({ DURABLE_TURNS_APPROVAL_KEYS: `a1:${key}` })?.active.id).toBe('a1');
    expect(approvalKeysOption(false)).toBeUndefined();
  });

  test('a malformed variable fails naming this variable and the format, never the key', () => {
    let thrown: unknown;
    try {
      parseApprovalKeys(`a1:${randomBytes(16).toString('base64')},a2:${key}`);
    } catch (error) {
      thrown = error;
    }
    expect(ApprovalKeysError.isInstance(thrown)).toBe(true);
    const message = (thrown as Error).message;
    expect(message).toMatch(/key 1 of DURABLE_TURNS_APPROVAL_KEYS \(id a1\) is 16 bytes, not 32/);
    expect(message).toMatch(
      /Expected DURABLE_TURNS_APPROVAL_KEYS=<id>:<base64 of 32 random bytes>.*the first key signs/,
    );
    expect(message).not.toContain(key);
  });
});

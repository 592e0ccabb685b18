import { DurableTurnsError, hasMarker } from '../core/errors/durable-turns-error';
import { type KeyList, parseKeyList } from './key-list';

const approvalKeysMarker = Symbol.for('durable-turns.approval-keys-error');

/** The environment variable workers (which verify) and clients, the CLI and the dashboard (which sign) read. */
export const approvalKeysVariable = 'DURABLE_TURNS_APPROVAL_KEYS';

const expectedFormat =
  `${approvalKeysVariable}=<id>:<base64 of 32 random bytes>[,<older id>:<base64>…] — the first key signs, ` +
  'every listed key verifies; ids are 1–64 letters, digits, ".", "_" or "-" (make a key with `openssl rand -base64 32`)';

/**
 * The keys that sign approvals (HMAC-SHA256): the first signs, every listed one verifies. Keep them
 * apart from the encryption keys: whoever holds one can approve in any signed turn of the fleet.
 */
export type ApprovalKeys = KeyList;

/** A key variable that does not parse: says what is wrong and the format, never a key's bytes. */
export class ApprovalKeysError extends DurableTurnsError {
  readonly [approvalKeysMarker] = true;
  override readonly name = 'ApprovalKeysError';

  constructor(message: string) {
    super(message, { code: 'approval-keys-invalid' });
  }

  static override isInstance(error: unknown): error is ApprovalKeysError {
    return hasMarker(error, approvalKeysMarker);
  }
}

/** Parses `id1:base64,id0:base64` (the first one signs); a rotation puts the new key first everywhere. */
export function parseApprovalKeys(text: string): ApprovalKeys {
  return parseKeyList(text, {
    variable: approvalKeysVariable,
    expectedFormat,
    fail: (message) => new ApprovalKeysError(message),
  });
}

/** The keys in the environment, or undefined when the variable is unset or empty (nothing signed). */
export function approvalKeysFromEnv(env: NodeJS.ProcessEnv = process.env): ApprovalKeys | undefined {
  const text = env[approvalKeysVariable];
  if (text === undefined || text.trim() === '') return undefined;
  return parseApprovalKeys(text);
}

/** An option's keys: given ones, none (`false`), or unset: the environment's. */
export function approvalKeysOption(option: ApprovalKeys | false | undefined): ApprovalKeys | undefined {
  if (option === false) return undefined;
  return option ?? approvalKeysFromEnv();
}

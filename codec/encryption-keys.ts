import { DurableTurnsError, hasMarker } from '../core/errors/durable-turns-error';
import { type KeyList, parseKeyList } from './key-list';

const encryptionKeysMarker = Symbol.for('durable-turns.encryption-keys-error');

/** The environment variable the worker, clients, CLI and dashboard read their keys from. */
export const encryptionKeysVariable = 'DURABLE_TURNS_ENCRYPTION_KEYS';

const expectedFormat =
  `${encryptionKeysVariable}=<id>:<base64 of 32 random bytes>[,<older id>:<base64>…] — the first key encrypts, ` +
  'every listed key decrypts; ids are 1–64 letters, digits, ".", "_" or "-" (make a key with `openssl rand -base64 32`)';

/** One key: its id and 32 bytes (AES-256). */
export type { NamedKey as EncryptionKey } from './key-list';

/** The keys a process holds: one that encrypts, and every one it can decrypt with (it included). */
export type EncryptionKeys = KeyList;

/** A key variable that does not parse: says what is wrong and the format, never a key's bytes. */
export class EncryptionKeysError extends DurableTurnsError {
  readonly [encryptionKeysMarker] = true;
  override readonly name = 'EncryptionKeysError';

  constructor(message: string) {
    super(message, { code: 'encryption-keys-invalid' });
  }

  static override isInstance(error: unknown): error is EncryptionKeysError {
    return hasMarker(error, encryptionKeysMarker);
  }
}

/**
 * Parses `id1:base64,id0:base64` (the first one active). Key rotation is a new key put first: the
 * old ones stay listed for what they encrypted (history lasts as long as the namespace keeps it).
 */
export function parseEncryptionKeys(text: string): EncryptionKeys {
  return parseKeyList(text, {
    variable: encryptionKeysVariable,
    expectedFormat,
    fail: (message) => new EncryptionKeysError(message),
  });
}

/** The keys in the environment, or undefined when the variable is unset or empty (no encryption). */
export function encryptionKeysFromEnv(env: NodeJS.ProcessEnv = process.env): EncryptionKeys | undefined {
  const text = env[encryptionKeysVariable];
  if (text === undefined || text.trim() === '') return undefined;
  return parseEncryptionKeys(text);
}

import { z } from 'zod';
import { DurableTurnsError, hasMarker } from '../core/errors/durable-turns-error';

const encryptionKeysMarker = Symbol.for('durable-turns.encryption-keys-error');

/** The environment variable the worker, clients, CLI and dashboard read their keys from. */
export const encryptionKeysVariable = 'DURABLE_TURNS_ENCRYPTION_KEYS';

const expectedFormat =
  `${encryptionKeysVariable}=<id>:<base64 of 32 random bytes>[,<older id>:<base64>…] — the first key encrypts, ` +
  'every listed key decrypts; ids are 1–64 letters, digits, ".", "_" or "-" (make a key with `openssl rand -base64 32`)';

const keyIdSchema = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/);

export interface EncryptionKey {
  id: string;
  /** 32 bytes: AES-256. */
  key: Buffer;
}

/** The keys a process holds: one that encrypts, and every one it can decrypt with (it included). */
export interface EncryptionKeys {
  active: EncryptionKey;
  byId: ReadonlyMap<string, EncryptionKey>;
}

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
  const entries = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (entries.length === 0)
    throw new EncryptionKeysError(`${encryptionKeysVariable} lists no key. Expected ${expectedFormat}`);
  const byId = new Map<string, EncryptionKey>();
  for (const [index, entry] of entries.entries()) {
    const colon = entry.indexOf(':');
    const where = `key ${index + 1} of ${encryptionKeysVariable}`;
    if (colon < 0)
      throw new EncryptionKeysError(`${where} has no "<id>:" before it. Expected ${expectedFormat}`);
    const id = entry.slice(0, colon);
    if (!keyIdSchema.safeParse(id).success)
      throw new EncryptionKeysError(`${where} has an id that is not allowed. Expected ${expectedFormat}`);
    if (byId.has(id))
      throw new EncryptionKeysError(`${where}: id ${id} is listed twice. Expected ${expectedFormat}`);
    const encoded = entry.slice(colon + 1);
    const key = Buffer.from(encoded, 'base64');
    // Buffer.from drops what is not base64: a key that does not round-trip was mistyped.
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || key.toString('base64') !== encoded)
      throw new EncryptionKeysError(`${where} (id ${id}) is not valid base64. Expected ${expectedFormat}`);
    if (key.length !== 32)
      throw new EncryptionKeysError(
        `${where} (id ${id}) is ${key.length} bytes, not 32. Expected ${expectedFormat}`,
      );
    byId.set(id, { id, key });
  }
  const [first] = byId.values();
  if (!first)
    throw new EncryptionKeysError(`${encryptionKeysVariable} lists no key. Expected ${expectedFormat}`);
  return { active: first, byId };
}

/** The keys in the environment, or undefined when the variable is unset or empty (no encryption). */
export function encryptionKeysFromEnv(env: NodeJS.ProcessEnv = process.env): EncryptionKeys | undefined {
  const text = env[encryptionKeysVariable];
  if (text === undefined || text.trim() === '') return undefined;
  return parseEncryptionKeys(text);
}

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { EncryptionKeys } from './encryption-keys';
import { PayloadKeyMissingError } from './payload-key-missing-error';

/** How sealed text begins: a version, then the key id. Text without it was stored in the clear. */
const prefix = 'enc1:';
const ivBytes = 12;
const tagBytes = 16;

/**
 * Text encrypted at rest (the SQLite journal's rows) with the turn keys: AES-256-GCM, a fresh IV,
 * the key id in the clear, and `context` (where the text belongs, e.g. turn and row) bound as
 * additional data, so a sealed row copied to another place does not open there. Synchronous, for
 * use inside a database transaction.
 */
export function sealText({
  keys,
  text,
  context,
}: {
  keys: EncryptionKeys;
  text: string;
  context: string;
}): string {
  const { id, key } = keys.active;
  const iv = randomBytes(ivBytes);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(`${id}\n${context}`));
  const sealed = Buffer.concat([iv, cipher.update(text, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${prefix}${id}:${sealed.toString('base64')}`;
}

/** Whether the text was sealed (as opposed to stored in the clear before encryption was turned on). */
export function isSealed(text: string): boolean {
  return text.startsWith(prefix);
}

/** The text `sealText` sealed; a key it lacks, or a different key or place, is a PayloadKeyMissingError. */
export function openText({
  keys,
  sealed,
  context,
}: {
  keys: EncryptionKeys | undefined;
  sealed: string;
  context: string;
}): string {
  const rest = sealed.slice(prefix.length);
  const colon = rest.indexOf(':');
  const id = colon < 0 ? '(none)' : rest.slice(0, colon);
  const key = keys?.byId.get(id);
  if (!key) throw new PayloadKeyMissingError(id, 'missing');
  const data = Buffer.from(rest.slice(colon + 1), 'base64');
  if (data.length < ivBytes + tagBytes) throw new PayloadKeyMissingError(id, 'wrong');
  const decipher = createDecipheriv('aes-256-gcm', key.key, data.subarray(0, ivBytes));
  decipher.setAAD(Buffer.from(`${id}\n${context}`));
  decipher.setAuthTag(data.subarray(data.length - tagBytes));
  try {
    return Buffer.concat([
      decipher.update(data.subarray(ivBytes, data.length - tagBytes)),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    throw new PayloadKeyMissingError(id, 'wrong');
  }
}

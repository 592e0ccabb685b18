import { z } from 'zod';

const keyIdSchema = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/);

export interface NamedKey {
  id: string;
  /** 32 bytes. */
  key: Buffer;
}

/** Keys read from one variable: the first listed is the active one; every listed one is known. */
export interface KeyList {
  active: NamedKey;
  byId: ReadonlyMap<string, NamedKey>;
}

/**
 * Parses `id1:base64,id0:base64` (the first one active), as the encryption and approval keys are
 * written. A list that does not parse fails through `fail` with what is wrong and `expectedFormat`,
 * never a key's bytes.
 */
export function parseKeyList(
  text: string,
  {
    variable,
    expectedFormat,
    fail,
  }: { variable: string; expectedFormat: string; fail: (message: string) => Error },
): KeyList {
  const entries = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (entries.length === 0) throw fail(`${variable} lists no key. Expected ${expectedFormat}`);
  const byId = new Map<string, NamedKey>();
  for (const [index, entry] of entries.entries()) {
    const colon = entry.indexOf(':');
    const where = `key ${index + 1} of ${variable}`;
    if (colon < 0) throw fail(`${where} has no "<id>:" before it. Expected ${expectedFormat}`);
    const id = entry.slice(0, colon);
    if (!keyIdSchema.safeParse(id).success)
      throw fail(`${where} has an id that is not allowed. Expected ${expectedFormat}`);
    if (byId.has(id)) throw fail(`${where}: id ${id} is listed twice. Expected ${expectedFormat}`);
    const encoded = entry.slice(colon + 1);
    const key = Buffer.from(encoded, 'base64');
    // Buffer.from drops what is not base64: a key that does not round-trip was mistyped.
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || key.toString('base64') !== encoded)
      throw fail(`${where} (id ${id}) is not valid base64. Expected ${expectedFormat}`);
    if (key.length !== 32)
      throw fail(`${where} (id ${id}) is ${key.length} bytes, not 32. Expected ${expectedFormat}`);
    byId.set(id, { id, key });
  }
  const [first] = byId.values();
  if (!first) throw fail(`${variable} lists no key. Expected ${expectedFormat}`);
  return { active: first, byId };
}

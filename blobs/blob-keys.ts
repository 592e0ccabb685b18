/**
 * The keys objects are stored under. A blob in the clear is under its SHA-256, an encrypted one
 * under its key id and a keyed name (`encrypted-blob-store.ts`); both are sharded by their first two
 * hex digits, so no folder holds more than 1/256 of the objects. A key read from a `BlobRef` is
 * parsed before it is used: a folder store joins it to a path, and a key from outside must not
 * climb out of the folder.
 */

const plainKey = /^sha256\/([0-9a-f]{2})\/([0-9a-f]{64})$/;
const sealedKey = /^sealed\/([A-Za-z0-9._-]{1,64})\/([0-9a-f]{2})\/([0-9a-f]{64})$/;

export type ParsedBlobKey =
  | { kind: 'plain'; sha256: string }
  | { kind: 'sealed'; keyId: string; name: string };

/** The key of a blob stored in the clear. */
export function plainBlobKey(sha256: string): string {
  return `sha256/${sha256.slice(0, 2)}/${sha256}`;
}

/** The key of a blob sealed with the encryption key `keyId`; `name` is 64 hex digits. */
export function sealedBlobKey({ keyId, name }: { keyId: string; name: string }): string {
  return `sealed/${keyId}/${name.slice(0, 2)}/${name}`;
}

/** What a key says, or undefined for a key no blob store makes. */
export function parseBlobKey(key: string): ParsedBlobKey | undefined {
  const [, shard = '', sha256 = ''] = plainKey.exec(key) ?? [];
  if (sha256) return sha256.startsWith(shard) ? { kind: 'plain', sha256 } : undefined;
  const [, keyId = '', sealedShard = '', name = ''] = sealedKey.exec(key) ?? [];
  // A key id of dots only would be `.` or `..` in a path.
  if (!name || /^\.+$/.test(keyId) || !name.startsWith(sealedShard)) return undefined;
  return { kind: 'sealed', keyId, name };
}

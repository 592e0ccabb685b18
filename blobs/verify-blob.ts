import type { BlobRef } from '../core/schema/media';
import { BlobStoreError } from './blob-store-error';
import { sha256Hex } from './sha256-hex';

/**
 * Throws unless `bytes` are the blob `ref` describes: its length, then its SHA-256. What a store
 * returns is always checked, so a truncated, altered or swapped object never reaches a model.
 */
export function verifyBlob({ ref, bytes, where }: { ref: BlobRef; bytes: Uint8Array; where: string }): void {
  const sha256 = bytes.length === ref.bytes ? sha256Hex(bytes) : undefined;
  if (sha256 === ref.sha256) return;
  const found = sha256 === undefined ? `${bytes.length} bytes` : `bytes with SHA-256 ${sha256}`;
  throw new BlobStoreError(
    `blob ${ref.key} in ${where} is corrupt: the reference says ${ref.bytes} bytes with SHA-256 ${ref.sha256}, the store holds ${found}`,
    { code: 'blob-corrupt', key: ref.key },
  );
}

import type { BlobRef } from '../core/schema/media';
import { type ParsedBlobKey, plainBlobKey } from './blob-keys';
import { blobKeyMissing } from './blob-store-error';

/**
 * How a store's objects relate to its blobs: the key a blob goes under, and what is written for it
 * and read back. In the clear (below) or encrypted (`encrypted-blob-store.ts`).
 */
export interface BlobSealing {
  /** The key for the blob whose bytes have this SHA-256. */
  keyOf(sha256: string): string;
  /** What is written for the blob's bytes. */
  seal(bytes: Uint8Array): Promise<Uint8Array>;
  /** The blob's bytes from what was read under `key` (which another sealing may have made). */
  open(read: { stored: Uint8Array; key: ParsedBlobKey; ref: BlobRef }): Promise<Uint8Array>;
}

/** Blobs stored as they are, under their SHA-256; an encrypted one needs its key, which this lacks. */
export const inTheClear: BlobSealing = {
  keyOf: plainBlobKey,
  seal: async (bytes) => bytes,
  open: async ({ stored, key, ref }) => {
    if (key.kind === 'sealed') throw blobKeyMissing({ key: ref.key, keyId: key.keyId, why: 'missing' });
    return stored;
  },
};

import type { BlobRef } from '../core/schema/media';

export type { BlobRef } from '../core/schema/media';

/**
 * Where file parts too big for history are kept (the claim check): history holds the `BlobRef`,
 * the store holds the bytes. Content-addressed, so storing is idempotent: the same bytes give the
 * same ref and one object however often, and by however many processes, they are stored.
 */
export interface BlobStore {
  /** Stores the bytes (if the store lacks them) and returns their reference. */
  put(blob: { bytes: Uint8Array }): Promise<BlobRef>;
  /**
   * The bytes of `ref`, checked against its length and SHA-256 before they are returned. Fails
   * with a `BlobStoreError`: `blob-missing`, `blob-corrupt`, `blob-key-missing` or `blob-store-failed`.
   */
  get(ref: BlobRef): Promise<Uint8Array>;
}

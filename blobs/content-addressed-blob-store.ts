import { quoted } from '../core/schema/format-issues';
import type { BlobRef } from '../core/schema/media';
import { parseBlobKey } from './blob-keys';
import type { BlobObjects } from './blob-objects';
import { type BlobSealing, inTheClear } from './blob-sealing';
import type { BlobStore } from './blob-store';
import { BlobStoreError } from './blob-store-error';
import { failureText } from './failure-text';
import { sha256Hex } from './sha256-hex';
import { verifyBlob } from './verify-blob';

/**
 * A `BlobStore` over any `BlobObjects`: a blob's key comes from its SHA-256, so storing is
 * idempotent, and what is read is checked against the reference before it is returned.
 */
export class ContentAddressedBlobStore implements BlobStore {
  constructor(
    private readonly objects: BlobObjects,
    private readonly sealing: BlobSealing = inTheClear,
  ) {}

  /** Where the objects are (a folder, or `s3://bucket/prefix`). */
  get where(): string {
    return this.objects.where;
  }

  async put({ bytes }: { bytes: Uint8Array }): Promise<BlobRef> {
    const sha256 = sha256Hex(bytes);
    const key = this.sealing.keyOf(sha256);
    await this.failingAs({ doing: 'store', key }, async () => {
      // Already there: the same bytes (or, sealed, the same bytes under the same key).
      if (!(await this.objects.has(key))) await this.objects.write(key, await this.sealing.seal(bytes));
    });
    return { key, sha256, bytes: bytes.length };
  }

  async get(ref: BlobRef): Promise<Uint8Array> {
    const key = parseBlobKey(ref.key);
    if (!key)
      throw new BlobStoreError(`blob key ${quoted(ref.key)} is not one a blob store makes`, {
        code: 'blob-missing',
        key: ref.key,
      });
    const stored = await this.failingAs({ doing: 'read', key: ref.key }, () => this.objects.read(ref.key));
    if (stored === undefined)
      throw new BlobStoreError(
        `blob ${ref.key} is not in ${this.where}: it was deleted, or this process uses another blob store than the one that stored it`,
        { code: 'blob-missing', key: ref.key },
      );
    const bytes = await this.sealing.open({ stored, key, ref });
    verifyBlob({ ref, bytes, where: this.where });
    return bytes;
  }

  /** Runs a backend call; what it throws becomes a `blob-store-failed` naming the blob and the store. */
  private async failingAs<T>(
    { doing, key }: { doing: string; key: string },
    call: () => Promise<T>,
  ): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (BlobStoreError.isInstance(error)) throw error;
      throw new BlobStoreError(`could not ${doing} blob ${key} in ${this.where}: ${failureText(error)}`, {
        code: 'blob-store-failed',
        key,
        cause: error,
      });
    }
  }
}

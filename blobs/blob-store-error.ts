import { encryptionKeysVariable } from '../codec/encryption-keys';
import { DurableTurnsError, hasMarker } from '../core/errors/durable-turns-error';

const marker = Symbol.for('durable-turns.blob-store-error');

/**
 * - `blob-missing`: no object under the reference's key (deleted, or another store is configured);
 * - `blob-corrupt`: the object is there but is not the bytes the reference describes;
 * - `blob-key-missing`: the object is encrypted with a key this process does not hold (a process
 *   with the key can read it: treat it as the codec's `payload-key-missing`, not as lost data);
 * - `blob-store-failed`: the store could not be read or written (disk, network, permissions);
 * - `blob-store-invalid`: the store's settings do not parse.
 */
export type BlobStoreErrorCode =
  | 'blob-missing'
  | 'blob-corrupt'
  | 'blob-key-missing'
  | 'blob-store-failed'
  | 'blob-store-invalid';

/** Every error of the blob store: the code says which kind, the message names the key and the store. */
export class BlobStoreError extends DurableTurnsError {
  readonly [marker] = true;
  override readonly name = 'BlobStoreError';
  declare readonly code: BlobStoreErrorCode;
  /** The blob's key, where the error is about one blob. */
  readonly key: string | undefined;

  constructor(
    message: string,
    { code, key, cause }: { code: BlobStoreErrorCode; key?: string; cause?: unknown },
  ) {
    super(message, { code, cause });
    this.key = key;
  }

  static override isInstance(error: unknown): error is BlobStoreError {
    return hasMarker(error, marker);
  }
}

/** A sealed blob this process cannot open: its key is not listed, or the listed key is another. */
export function blobKeyMissing({
  key,
  keyId,
  why,
  cause,
}: {
  key: string;
  keyId: string;
  why: 'missing' | 'wrong';
  cause?: unknown;
}): BlobStoreError {
  const message =
    why === 'missing'
      ? `blob ${key} is encrypted with key ${keyId}, which this process does not hold: add it to ${encryptionKeysVariable} (after the active key)`
      : `blob ${key} does not open with the key listed as ${keyId} in ${encryptionKeysVariable}: it is a different key, or the object was altered`;
  return new BlobStoreError(message, { code: 'blob-key-missing', key, cause });
}

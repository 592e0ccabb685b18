/**
 * The objects under a blob store: bytes by key, in a folder or a bucket. Content addressing,
 * verification and encryption are above it (`ContentAddressedBlobStore`), so a backend only moves
 * bytes. Keys are `/`-separated and made by `blob-keys.ts`, never taken raw from outside.
 */
export interface BlobObjects {
  /** Where the objects are, for errors: a folder, or `s3://bucket/prefix`. */
  readonly where: string;
  /** Whether an object is stored under the key. */
  has(key: string): Promise<boolean>;
  /** The object's bytes, or undefined when there is none under the key. */
  read(key: string): Promise<Uint8Array | undefined>;
  /**
   * Stores the bytes under the key, whole or not at all: a reader never sees a partial object.
   * Writers racing on one key all succeed (content addressing: they write the same blob).
   */
  write(key: string, bytes: Uint8Array): Promise<void>;
}

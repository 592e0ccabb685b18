import { createHmac, hkdfSync } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { EncryptionCodec } from '../codec/encryption-codec';
import type { EncryptionKeys } from '../codec/encryption-keys';
import { PayloadKeyMissingError } from '../codec/payload-key-missing-error';
import { sealedBlobKey } from './blob-keys';
import type { BlobObjects } from './blob-objects';
import type { BlobSealing } from './blob-sealing';
import { BlobStoreError, blobKeyMissing } from './blob-store-error';
import { ContentAddressedBlobStore } from './content-addressed-blob-store';

const { Payload } = temporal.api.common.v1;

/**
 * Objects encrypted with the turn keys, by the payload codec itself: each object is a Temporal
 * payload that `EncryptionCodec` sealed (AES-256-GCM, a fresh IV, the key id in its metadata, in
 * the clear), so an object stays readable after a rotation as long as its key is listed, and a
 * codec server could open it too. Not deflated: images and PDFs are compressed already.
 *
 * An object's key is its key id and an HMAC of the blob's SHA-256 under a key derived from the
 * encryption key: content-addressed still (the same bytes, under the same key, go to one object),
 * but a bucket's listing does not show the digests, which would tell anyone holding a file whether
 * it is stored. The SHA-256 in the `BlobRef` is of the plaintext, checked after decryption; an
 * object from before encryption was turned on (a key in the clear) is still read, and checked.
 */
export function encryptedSealing(keys: EncryptionKeys): BlobSealing {
  const codec = new EncryptionCodec({ keys, compressAbove: false });
  const { id: keyId, key } = keys.active;
  const namingKey = Buffer.from(hkdfSync('sha256', key, new Uint8Array(), 'durable-turns blob names', 32));
  return {
    keyOf: (sha256) =>
      sealedBlobKey({ keyId, name: createHmac('sha256', namingKey).update(sha256).digest('hex') }),
    seal: async (bytes) => {
      const [sealed] = await codec.encode([{ data: bytes }]);
      return Payload.encode(sealed ?? {}).finish();
    },
    open: async ({ stored, key: parsed, ref }) => {
      if (parsed.kind === 'plain') return stored;
      let payload: temporal.api.common.v1.Payload;
      try {
        payload = Payload.decode(stored);
      } catch (error) {
        throw new BlobStoreError(`blob ${ref.key} is corrupt: it is not a sealed object (${String(error)})`, {
          code: 'blob-corrupt',
          key: ref.key,
          cause: error,
        });
      }
      try {
        const [opened] = await codec.decode([payload]);
        return opened?.data ?? new Uint8Array();
      } catch (error) {
        if (!PayloadKeyMissingError.isInstance(error)) throw error;
        const why = keys.byId.has(error.keyId) ? 'wrong' : 'missing';
        throw blobKeyMissing({ key: ref.key, keyId: error.keyId, why, cause: error });
      }
    },
  };
}

/** A blob store whose objects are encrypted with `keys` (the active one seals, every listed one opens). */
export class EncryptedBlobStore extends ContentAddressedBlobStore {
  constructor({ objects, keys }: { objects: BlobObjects; keys: EncryptionKeys }) {
    super(objects, encryptedSealing(keys));
  }
}

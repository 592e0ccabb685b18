import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { EncryptionKeys } from './encryption-keys';
import { PayloadKeyMissingError } from './payload-key-missing-error';

/** The encoding of an encrypted payload (the name Temporal's encryption samples use). */
export const encryptedEncoding = 'binary/encrypted';
export const keyIdMetadata = 'encryption-key-id';
/** Set when the plaintext was deflated before it was encrypted. */
export const compressionMetadata = 'encryption-compression';

const ivBytes = 12;
const tagBytes = 16;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface EncryptionCodecOptions {
  keys: EncryptionKeys;
  /**
   * Deflate payloads at least this big before encrypting them (encrypted data does not compress);
   * `false`: never. Transcripts and tool outputs are JSON text, which deflate shrinks several-fold.
   */
  compressAbove?: number | false;
}

/**
 * AES-256-GCM over each whole payload (its metadata and data, so the encoding is hidden too), with a
 * fresh 96-bit IV per payload and the key id as additional data: a payload moved under another
 * key's id does not open. The key id travels in the clear in the metadata, so a process knows which
 * of its keys to use, and a key rotation needs no re-encryption of history.
 */
export class EncryptionCodec implements PayloadCodec {
  private readonly compressAbove: number | false;

  constructor(private readonly options: EncryptionCodecOptions) {
    this.compressAbove = options.compressAbove ?? 1024;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const { active } = this.options.keys;
    return payloads.map((payload) => {
      const plain = temporal.api.common.v1.Payload.encode(payload).finish();
      const compress = this.compressAbove !== false && plain.length >= this.compressAbove;
      const body = compress ? deflateRawSync(plain) : plain;
      const iv = randomBytes(ivBytes);
      const cipher = createCipheriv('aes-256-gcm', active.key, iv);
      cipher.setAAD(encoder.encode(active.id));
      const sealed = Buffer.concat([iv, cipher.update(body), cipher.final(), cipher.getAuthTag()]);
      return {
        metadata: {
          encoding: encoder.encode(encryptedEncoding),
          [keyIdMetadata]: encoder.encode(active.id),
          ...(compress ? { [compressionMetadata]: encoder.encode('deflate-raw') } : {}),
        },
        data: sealed,
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const keyId = encryptedKeyId(payload);
      if (keyId === undefined) return payload;
      const key = this.options.keys.byId.get(keyId);
      if (!key) throw new PayloadKeyMissingError(keyId, 'missing');
      const data = payload.data ?? new Uint8Array();
      if (data.length < ivBytes + tagBytes) throw new PayloadKeyMissingError(keyId, 'wrong');
      const iv = data.subarray(0, ivBytes);
      const tag = data.subarray(data.length - tagBytes);
      const decipher = createDecipheriv('aes-256-gcm', key.key, iv);
      decipher.setAAD(encoder.encode(keyId));
      decipher.setAuthTag(tag);
      let body: Buffer;
      try {
        body = Buffer.concat([
          decipher.update(data.subarray(ivBytes, data.length - tagBytes)),
          decipher.final(),
        ]);
      } catch {
        // GCM's tag does not match: another key under this id, or altered data.
        throw new PayloadKeyMissingError(keyId, 'wrong');
      }
      const plain = payload.metadata?.[compressionMetadata] ? inflateRawSync(body) : body;
      return temporal.api.common.v1.Payload.decode(plain);
    });
  }
}

/** The key id of an encrypted payload (`(none)` when it names none); undefined for one not encrypted. */
export function encryptedKeyId(payload: Payload): string | undefined {
  const encoding = payload.metadata?.encoding;
  if (!encoding || decoder.decode(encoding) !== encryptedEncoding) return undefined;
  const keyId = payload.metadata?.[keyIdMetadata];
  return keyId ? decoder.decode(keyId) : '(none)';
}

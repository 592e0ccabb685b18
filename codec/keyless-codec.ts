import type { Payload, PayloadCodec } from '@temporalio/common';
import { encryptedKeyId } from './encryption-codec';
import { PayloadKeyMissingError } from './payload-key-missing-error';

/**
 * The codec of a process without encryption keys: it writes payloads as they are, and refuses an
 * encrypted one by name (its key id, and that this process holds none) instead of leaving the SDK
 * to fail with "Unknown encoding: binary/encrypted", which names neither. Such payloads come from
 * a run with keys on the same server (a dev server's state kept across runs, a fleet half
 * configured).
 */
export class KeylessCodec implements PayloadCodec {
  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads;
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    for (const payload of payloads) {
      const keyId = encryptedKeyId(payload);
      if (keyId !== undefined) throw new PayloadKeyMissingError(keyId, 'none');
    }
    return payloads;
  }
}

import { randomBytes } from 'node:crypto';
import type { Payload } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/common';
import { compressionMetadata, EncryptionCodec, encryptedEncoding, keyIdMetadata } from './encryption-codec';
import { parseEncryptionKeys } from './encryption-keys';
import { PayloadKeyMissingError } from './payload-key-missing-error';

const [k0, k1] = [randomBytes(32).toString('base64'), randomBytes(32).toString('base64')];
const codec = (text: string, compressAbove?: number | false) =>
  new EncryptionCodec({
    keys: parseEncryptionKeys(text),
    ...(compressAbove !== undefined && { compressAbove }),
  });
const payload = (value: unknown): Payload => defaultPayloadConverter.toPayload(value);
const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('utf8');
/** A payload as text, to compare contents (decoded ones are protobuf messages, not plain objects). */
const readable = (payloads: Payload[]) =>
  payloads.map((p) => ({
    metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, text(v)])),
    data: text(p.data),
  }));

describe('EncryptionCodec', () => {
  test('what it encodes it decodes back exactly, metadata and all; the stored form shows neither', async () => {
    const c = codec(`k0:${k0}`);
    const original = [payload({ card: '4111 secret' }), payload('plain text'), payload(null)];
    const sealed = await c.encode(original);
    for (const p of sealed) {
      expect(text(p.metadata?.encoding)).toBe(encryptedEncoding);
      expect(text(p.metadata?.[keyIdMetadata])).toBe('k0');
      expect(text(p.data)).not.toMatch(/secret|plain text|json/);
    }
    expect(readable(await c.decode(sealed))).toEqual(readable(original));
  });

  test('the same payload encrypts differently each time (a fresh IV)', async () => {
    const c = codec(`k0:${k0}`);
    const [a, b] = await c.encode([payload('same'), payload('same')]);
    expect(Buffer.from(a?.data ?? []).equals(Buffer.from(b?.data ?? []))).toBe(false);
  });

  test('after a rotation, old payloads decode with the old key and new ones go under the new key', async () => {
    const old = await codec(`k0:${k0}`).encode([payload('before')]);
    const rotated = codec(`k1:${k1},k0:${k0}`);
    const fresh = await rotated.encode([payload('after')]);
    expect(text(fresh[0]?.metadata?.[keyIdMetadata])).toBe('k1');
    expect(readable(await rotated.decode([...old, ...fresh]))).toEqual(
      readable([payload('before'), payload('after')]),
    );
  });

  test('a payload under a key it lacks is a PayloadKeyMissingError naming the key id', async () => {
    const sealed = await codec(`k0:${k0}`).encode([payload('x')]);
    const decoding = codec(`k1:${k1}`).decode(sealed);
    await expect(decoding).rejects.toBeInstanceOf(PayloadKeyMissingError);
    await expect(decoding).rejects.toThrow(/encrypted with key k0, which this process does not hold/);
  });

  test('another key under the same id, or altered bytes, does not open: the same error, never garbage', async () => {
    const sealed = await codec(`k0:${k0}`).encode([payload('x')]);
    await expect(codec(`k0:${k1}`).decode(sealed)).rejects.toThrow(
      /does not open with the key listed under that id/,
    );
    const altered = sealed.map((p) => {
      const data = Buffer.from(p.data ?? []);
      data[data.length - 20] = (data[data.length - 20] ?? 0) ^ 1;
      return { ...p, data };
    });
    await expect(codec(`k0:${k0}`).decode(altered)).rejects.toBeInstanceOf(PayloadKeyMissingError);
    // Moved under another id (the id is bound as additional data): it does not open either.
    const moved = sealed.map((p) => ({
      ...p,
      metadata: { ...p.metadata, [keyIdMetadata]: Buffer.from('k1') },
    }));
    await expect(codec(`k1:${k0}`).decode(moved)).rejects.toBeInstanceOf(PayloadKeyMissingError);
  });

  test('payloads that are not encrypted pass through (history written before encryption was turned on)', async () => {
    const clear = [payload({ old: true })];
    expect(await codec(`k0:${k0}`).decode(clear)).toEqual(clear);
  });

  test('large payloads are deflated before they are encrypted, small ones not; both decode', async () => {
    const c = codec(`k0:${k0}`, 1024);
    const big = payload({ transcript: 'the same words again and again '.repeat(200) });
    const small = payload('short');
    const [sealedBig, sealedSmall] = await c.encode([big, small]);
    expect(text(sealedBig?.metadata?.[compressionMetadata])).toBe('deflate-raw');
    expect(sealedSmall?.metadata?.[compressionMetadata]).toBeUndefined();
    expect(sealedBig?.data?.length ?? 0).toBeLessThan((big.data?.length ?? 0) / 5);
    expect(readable(await c.decode([sealedBig as Payload, sealedSmall as Payload]))).toEqual(
      readable([big, small]),
    );
  });
});

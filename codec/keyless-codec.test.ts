import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { EncryptionCodec } from './encryption-codec';
import { parseEncryptionKeys } from './encryption-keys';
import { KeylessCodec } from './keyless-codec';
import { PayloadKeyMissingError } from './payload-key-missing-error';
import { ReportingCodec, type UnreadablePayload } from './unreadable-payloads';

const plain = defaultPayloadConverter.toPayload({ hello: 'world' });
const encrypted = () =>
  new EncryptionCodec({ keys: parseEncryptionKeys(`k3:${randomBytes(32).toString('base64')}`) }).encode([
    plain,
  ]);

describe('a process without keys', () => {
  test('writes and reads plain payloads as they are', async () => {
    const codec = new KeylessCodec();
    expect(await codec.encode([plain])).toEqual([plain]);
    expect(await codec.decode([plain])).toEqual([plain]);
  });

  test('refuses an encrypted payload naming its key id and that it holds no keys', async () => {
    const rejection = new KeylessCodec().decode(await encrypted());
    await expect(rejection).rejects.toThrow(
      'a payload is encrypted with key k3, and this process holds no encryption keys: set DURABLE_TURNS_ENCRYPTION_KEYS (with key k3) to read it',
    );
    expect(PayloadKeyMissingError.isInstance(await rejection.catch((error: unknown) => error))).toBe(true);
  });

  test('tells a listener which workflow it could not read, then fails as before', async () => {
    const heard: UnreadablePayload[] = [];
    const codec = new ReportingCodec(new KeylessCodec(), (payload) => heard.push(payload));
    await expect(
      codec.decode(await encrypted(), { type: 'workflow', namespace: 'default', workflowId: 'wf-1' }),
    ).rejects.toThrow(/key k3/);
    expect(heard).toEqual([
      { keyId: 'k3', workflowId: 'wf-1', why: expect.stringContaining('holds no encryption keys') },
    ]);
    expect(await codec.decode([plain])).toEqual([plain]);
  });
});

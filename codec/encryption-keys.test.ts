import { randomBytes } from 'node:crypto';
import { EncryptionKeysError, encryptionKeysFromEnv, parseEncryptionKeys } from './encryption-keys';

const key = randomBytes(32).toString('base64');
const other = randomBytes(32).toString('base64');

describe('DURABLE_TURNS_ENCRYPTION_KEYS', () => {
  test('the first key encrypts; every listed key decrypts', () => {
    const keys = parseEncryptionKeys(`k1:${key}, k0:${other}`);
    expect(keys.active.id).toBe('k1');
    expect(keys.active.key.toString('base64')).toBe(key);
    expect([...keys.byId.keys()]).toEqual(['k1', 'k0']);
  });

  test('unset or empty means no encryption', () => {
    expect(encryptionKeysFromEnv({})).toBeUndefined();
    expect(encryptionKeysFromEnv({ DURABLE_TURNS_ENCRYPTION_KEYS: ' ' })).toBeUndefined();
  });

  test.each([
    ['no id', key, /key 1 .* has no "<id>:"/],
    ['a bad id', `k 1:${key}`, /id that is not allowed/],
    ['not base64', 'k0:not*base64', /\(id k0\) is not valid base64/],
    ['16 bytes', `k0:${randomBytes(16).toString('base64')}`, /\(id k0\) is 16 bytes, not 32/],
    ['an id twice', `k0:${key},k0:${other}`, /id k0 is listed twice/],
    ['only commas', ',,', /lists no key/],
  ])('a malformed variable (%s) fails with the expected format, never the key', (_what, text, why) => {
    let thrown: unknown;
    try {
      parseEncryptionKeys(text);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(EncryptionKeysError);
    const message = (thrown as Error).message;
    expect(message).toMatch(why);
    expect(message).toMatch(/Expected DURABLE_TURNS_ENCRYPTION_KEYS=<id>:<base64 of 32 random bytes>/);
    expect(message).not.toContain(key);
    expect(message).not.toContain(other);
  });
});

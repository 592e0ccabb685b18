import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseEncryptionKeys } from '../codec/encryption-keys';
import type { BlobRef } from './blob-store';
import { ContentAddressedBlobStore } from './content-addressed-blob-store';
import { EncryptedBlobStore } from './encrypted-blob-store';
import { FileBlobObjects } from './file-blob-store';

const [k0, k1] = [randomBytes(32).toString('base64'), randomBytes(32).toString('base64')];
const plaintext = Buffer.from('a screenshot of the account page: card 4111 1111 1111 1111 '.repeat(100));

let objects: FileBlobObjects;
beforeEach(async () => {
  objects = new FileBlobObjects(await mkdtemp(path.join(tmpdir(), 'sealed-blobs-')));
});
afterEach(async () => {
  await rm(objects.directory, { recursive: true, force: true });
});

const encrypted = (keys: string) => new EncryptedBlobStore({ objects, keys: parseEncryptionKeys(keys) });
const fileOf = (ref: BlobRef) => path.join(objects.directory, ...ref.key.split('/'));

test('what is put comes back; on disk neither the bytes nor their SHA-256 show', async () => {
  const store = encrypted(`k0:${k0}`);
  const ref = await store.put({ bytes: plaintext });
  expect(Buffer.from(await store.get(ref)).equals(plaintext)).toBe(true);

  const stored = await readFile(fileOf(ref));
  expect(stored.includes(plaintext.subarray(0, 16))).toBe(false);
  expect(stored.toString('latin1')).not.toContain('4111');
  // The ref's SHA-256 is of the plaintext (what reads it back checks it); the object's name hides it.
  expect(ref.sha256).toMatch(/^[0-9a-f]{64}$/);
  expect(ref.key).toMatch(/^sealed\/k0\/[0-9a-f]{2}\/[0-9a-f]{64}$/);
  expect(ref.key).not.toContain(ref.sha256);
});

test('the same bytes under the same key give the same ref and one object', async () => {
  const first = await encrypted(`k0:${k0}`).put({ bytes: plaintext });
  const second = await encrypted(`k0:${k0}`).put({ bytes: Buffer.from(plaintext) });
  expect(second).toEqual(first);
  const entries = await readdir(objects.directory, { recursive: true, withFileTypes: true });
  expect(entries.filter((entry) => entry.isFile())).toHaveLength(1);
});

test('after a rotation, old objects still open with the old key, and new ones go under the new key', async () => {
  const old = await encrypted(`k0:${k0}`).put({ bytes: plaintext });
  const rotated = encrypted(`k1:${k1},k0:${k0}`);
  expect(Buffer.from(await rotated.get(old)).equals(plaintext)).toBe(true);

  const fresh = await rotated.put({ bytes: plaintext });
  expect(fresh.key).toMatch(/^sealed\/k1\//);
  expect(fresh.sha256).toBe(old.sha256);
  expect(Buffer.from(await encrypted(`k1:${k1}`).get(fresh)).equals(plaintext)).toBe(true);
});

test('an object whose key this process lacks is blob-key-missing, naming the key id', async () => {
  const ref = await encrypted(`k0:${k0}`).put({ bytes: plaintext });
  for (const store of [encrypted(`k1:${k1}`), new ContentAddressedBlobStore(objects)])
    await expect(store.get(ref)).rejects.toMatchObject({
      code: 'blob-key-missing',
      key: ref.key,
      message: `blob ${ref.key} is encrypted with key k0, which this process does not hold: add it to DURABLE_TURNS_ENCRYPTION_KEYS (after the active key)`,
    });
});

test('another key listed under the same id does not open it: blob-key-missing, never garbage', async () => {
  const ref = await encrypted(`k0:${k0}`).put({ bytes: plaintext });
  await expect(encrypted(`k0:${k1}`).get(ref)).rejects.toMatchObject({
    code: 'blob-key-missing',
    message: expect.stringContaining(`blob ${ref.key} does not open with the key listed as k0`),
  });
});

test('a sealed object swapped for another one is refused as corrupt: the plaintext digest is checked', async () => {
  const store = encrypted(`k0:${k0}`);
  const ref = await store.put({ bytes: plaintext });
  const other = await store.put({ bytes: randomBytes(plaintext.length) });
  await rename(fileOf(other), fileOf(ref));
  await expect(store.get(ref)).rejects.toMatchObject({ code: 'blob-corrupt', key: ref.key });
});

test('blobs stored in the clear before encryption was turned on are still read, and checked', async () => {
  const ref = await new ContentAddressedBlobStore(objects).put({ bytes: plaintext });
  expect(Buffer.from(await encrypted(`k0:${k0}`).get(ref)).equals(plaintext)).toBe(true);
});

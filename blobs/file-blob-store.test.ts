import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BlobRef } from './blob-store';
import { fileBlobStore } from './file-blob-store';

let directory: string;
beforeEach(async () => {
  directory = path.join(await mkdtemp(path.join(tmpdir(), 'blobs-')), 'not yet made');
});
afterEach(async () => {
  await rm(path.dirname(directory), { recursive: true, force: true });
});

/** Every file under the folder, relative to it. */
async function filesIn(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)))
    .sort();
}

test('what is put comes back byte for byte, the folder made on demand', async () => {
  const store = fileBlobStore({ directory });
  for (const bytes of [new Uint8Array(), Buffer.from('a small text'), randomBytes(3 * 1024 * 1024)]) {
    const ref = await store.put({ bytes });
    expect(ref.bytes).toBe(bytes.length);
    expect(Buffer.from(await store.get(ref)).equals(Buffer.from(bytes))).toBe(true);
  }
});

test('a blob is stored under its SHA-256, sharded by its first two digits', async () => {
  const ref = await fileBlobStore({ directory }).put({ bytes: Buffer.from('hello') });
  const sha256 = '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824';
  expect(ref).toEqual({ key: `sha256/2c/${sha256}`, sha256, bytes: 5 });
  expect(await filesIn(directory)).toEqual([path.join('sha256', '2c', sha256)]);
});

test('the same bytes stored twice, by two stores on one folder, give the same ref and one object', async () => {
  const bytes = randomBytes(10_000);
  const first = await fileBlobStore({ directory }).put({ bytes });
  const second = await fileBlobStore({ directory }).put({ bytes: Buffer.from(bytes) });
  expect(second).toEqual(first);
  expect(await filesIn(directory)).toHaveLength(1);
});

test('an object altered on disk is refused as corrupt, naming the key, whether its length changed or not', async () => {
  const store = fileBlobStore({ directory });
  const ref = await store.put({ bytes: Buffer.from('the original bytes') });
  const file = path.join(directory, ...ref.key.split('/'));

  await writeFile(file, 'the original BYTES');
  await expect(store.get(ref)).rejects.toMatchObject({
    code: 'blob-corrupt',
    key: ref.key,
    message: expect.stringMatching(
      `^blob ${ref.key} in the blob folder ${directory} is corrupt: the reference says 18 bytes with SHA-256 ${ref.sha256}, the store holds bytes with SHA-256 [0-9a-f]{64}$`,
    ),
  });

  await writeFile(file, 'the orig');
  await expect(store.get(ref)).rejects.toMatchObject({
    code: 'blob-corrupt',
    message: expect.stringContaining('the store holds 8 bytes'),
  });
});

test('a ref whose digest is not of the stored bytes is refused as corrupt', async () => {
  const store = fileBlobStore({ directory });
  const ref = await store.put({ bytes: Buffer.from('abc') });
  const other: BlobRef = { ...ref, sha256: 'f'.repeat(64) };
  await expect(store.get(other)).rejects.toMatchObject({ code: 'blob-corrupt' });
});

test('a missing object is blob-missing, naming the key and the folder', async () => {
  const store = fileBlobStore({ directory });
  const ref = await store.put({ bytes: Buffer.from('soon gone') });
  await rm(path.join(directory, ...ref.key.split('/')));
  await expect(store.get(ref)).rejects.toMatchObject({
    code: 'blob-missing',
    key: ref.key,
    message: expect.stringContaining(
      `blob ${ref.key} is not in the blob folder ${directory}: it was deleted`,
    ),
  });
});

test('a key no store makes is refused before anything is read: a ref cannot reach outside the folder', async () => {
  const store = fileBlobStore({ directory });
  const sha256 = 'a'.repeat(64);
  for (const key of [
    `sha256/../../../etc/${sha256}`,
    `sealed/../aa/${sha256}`,
    `sha256/bb/${sha256}`,
    '/etc/passwd',
    `sha256/aa/${sha256.toUpperCase()}`,
  ]) {
    await expect(store.get({ key, sha256, bytes: 1 })).rejects.toMatchObject({
      code: 'blob-missing',
      message: expect.stringContaining('is not one a blob store makes'),
    });
  }
});

test('a folder that cannot be written is blob-store-failed, naming the key, the folder and the cause', async () => {
  await writeFile(path.join(path.dirname(directory), 'a file'), 'not a folder');
  const store = fileBlobStore({ directory: path.join(path.dirname(directory), 'a file') });
  await expect(store.put({ bytes: Buffer.from('x') })).rejects.toMatchObject({
    code: 'blob-store-failed',
    message: expect.stringMatching(
      /^could not store blob sha256\/2d\/2d71\w+ in the blob folder .*a file: .*ENOTDIR/,
    ),
  });
});

test('a relative folder is refused: blobs must not move with the working folder', () => {
  expect(() => fileBlobStore({ directory: 'blobs' })).toThrow(
    expect.objectContaining({
      code: 'blob-store-invalid',
      message: 'a blob folder must be an absolute path, not "blobs"',
    }),
  );
});

test('puts of the same bytes at once in one process all succeed, leaving one whole object', async () => {
  const store = fileBlobStore({ directory });
  const bytes = randomBytes(512 * 1024);
  const refs = await Promise.all(Array.from({ length: 16 }, () => store.put({ bytes })));
  expect(new Set(refs.map((ref) => ref.key)).size).toBe(1);
  expect(await filesIn(directory)).toHaveLength(1);
  expect(Buffer.from(await store.get(refs[0] as BlobRef)).equals(bytes)).toBe(true);
});

/**
 * One racer: stores `rounds` blobs (the same ones in every racer, in the same order) from a `go`
 * line on, reading each back at once. A racer that saw another's object half-written would fail
 * the read; it prints its refs.
 */
const racer = `
const [module, directory, rounds] = process.argv.slice(1);
const { fileBlobStore } = require(module);
const store = fileBlobStore({ directory });
process.stdin.once('data', async () => {
  const refs = [];
  for (let round = 0; round < Number(rounds); round++) {
    const ref = await store.put({ bytes: Buffer.alloc(256 * 1024, round) });
    await store.get(ref);
    refs.push(ref);
  }
  process.stdout.write(JSON.stringify(refs));
  process.exit(0);
});
process.stdout.write('ready\\n');
`;

/** Starts a racer, which says `ready` and then waits for `go`, so that racers start together. */
function startRacer({ rounds }: { rounds: number }) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '-e', racer, path.join(__dirname, 'file-blob-store.ts'), directory, String(rounds)],
    {
      cwd: path.join(__dirname, '..'),
    },
  );
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  return {
    ready: new Promise((resolve) => child.stdout.once('data', resolve)),
    go: () => child.stdin.end('go\n'),
    refs: new Promise<BlobRef[]>((resolve, reject) =>
      child.on('exit', (code) =>
        code === 0
          ? resolve(JSON.parse(out.replace(/^ready\n/, '')))
          : reject(new Error(`a racer exited with ${code}: ${err}`)),
      ),
    ),
  };
}

test('processes racing to store the same blobs all succeed, and each object is whole', async () => {
  const rounds = 40;
  const racers = Array.from({ length: 3 }, () => startRacer({ rounds }));
  await Promise.all(racers.map(({ ready }) => ready));
  for (const { go } of racers) go();
  const [first = [], ...others] = await Promise.all(racers.map(({ refs }) => refs));
  for (const refs of others) expect(refs).toEqual(first);
  const files = await filesIn(directory);
  expect(files).toHaveLength(rounds);
  expect(files.filter((file) => file.endsWith('.tmp'))).toEqual([]);
  const store = fileBlobStore({ directory });
  for (const [round, ref] of first.entries())
    expect(Buffer.from(await store.get(ref)).equals(Buffer.alloc(256 * 1024, round))).toBe(true);
});

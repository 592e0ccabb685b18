import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AwsClient } from 'aws4fetch';
import { parseEncryptionKeys } from '../codec/encryption-keys';
import { defaultCacheDir } from '../devserver/default-cache-dir';
import { freePort } from '../devserver/free-port';
import { ContentAddressedBlobStore } from './content-addressed-blob-store';
import { EncryptedBlobStore } from './encrypted-blob-store';
import type { S3BlobStoreOptions, S3Credentials } from './s3-blob-options';
import { S3BlobObjects, s3BlobStore } from './s3-blob-store';

/**
 * The S3 store against real S3 servers on this machine: s3rver (an npm dev dependency, in this
 * process: it speaks S3's REST API but does not check SigV4 signatures), and MinIO, which checks
 * signatures and payload digests as AWS does, when a `minio` binary is at hand: nothing installs
 * it, as building it takes minutes (`GOFLAGS=-mod=mod go install github.com/minio/minio@latest`).
 */
interface S3Server {
  endpoint: string;
  credentials: S3Credentials;
  stop(): Promise<void>;
}

const bucket = 'turn-blobs';

/** s3rver ships no types: the part of its API used here. */
interface S3rverServer {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
  httpServer: { closeAllConnections(): void };
}
type S3rverClass = new (options: {
  address: string;
  port: number;
  silent: boolean;
  directory: string;
  configureBuckets: { name: string }[];
}) => S3rverServer;

function s3rverClass(): S3rverClass | undefined {
  try {
    return require('s3rver') as S3rverClass;
  } catch {
    return undefined;
  }
}

async function startS3rver(S3rver: S3rverClass): Promise<S3Server> {
  const directory = await mkdtemp(path.join(tmpdir(), 's3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    stop: async () => {
      // fetch keeps connections open for reuse, and closing waits for them.
      const closed = server.close();
      server.httpServer.closeAllConnections();
      await closed;
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/**
 * `DURABLE_TURNS_TEST_MINIO` (then it must run), else `minio` on the PATH, else one left in
 * durable-turns' cache folder; undefined when there is none.
 */
function minioBinary(): string | undefined {
  const named = process.env.DURABLE_TURNS_TEST_MINIO?.trim();
  if (named) return named;
  const folders = (process.env.PATH ?? '').split(path.delimiter).filter((folder) => folder !== '');
  return [...folders, path.join(defaultCacheDir(), 'minio')]
    .map((folder) => path.join(folder, 'minio'))
    .find((file) => {
      try {
        accessSync(file, constants.X_OK);
        return statSync(file).isFile();
      } catch {
        return false;
      }
    });
}

async function startMinio(binary: string): Promise<S3Server> {
  const directory = await mkdtemp(path.join(tmpdir(), 'minio-'));
  const endpoint = `http://127.0.0.1:${await freePort()}`;
  const credentials = { accessKeyId: 'durable-turns', secretAccessKey: randomBytes(16).toString('hex') };
  let log = '';
  const child: ChildProcess = spawn(
    binary,
    ['server', directory, '--address', new URL(endpoint).host, '--quiet'],
    {
      env: {
        ...process.env,
        MINIO_ROOT_USER: credentials.accessKeyId,
        MINIO_ROOT_PASSWORD: credentials.secretAccessKey,
        MINIO_BROWSER: 'off',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.on('data', (chunk: Buffer) => {
    log += chunk;
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    log += chunk;
  });
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(directory, { recursive: true, force: true });
  };
  const deadline = Date.now() + 20_000;
  while (
    !(await fetch(`${endpoint}/minio/health/ready`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`MinIO did not start (${binary}): ${log.slice(-2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const client = new AwsClient({ ...credentials, service: 's3', region: 'us-east-1' });
  const made = await client.fetch(`${endpoint}/${bucket}`, { method: 'PUT' });
  if (!made.ok) throw new Error(`MinIO did not make the bucket: ${made.status} ${await made.text()}`);
  return { endpoint, credentials, stop };
}

/** What each server is asked; `checksSignatures`: whether it refuses a request signed with a wrong secret. */
function behavesAsAnS3Store(
  start: () => Promise<S3Server>,
  { checksSignatures }: { checksSignatures: boolean },
) {
  let server: S3Server;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server?.stop();
  });

  const options = (more: Partial<S3BlobStoreOptions> = {}): S3BlobStoreOptions => ({
    bucket,
    endpoint: server.endpoint,
    credentials: server.credentials,
    ...more,
  });
  const bytes = randomBytes(300 * 1024);

  test('what is put comes back; the same bytes again are not uploaded again, and give the same ref', async () => {
    const objects = new S3BlobObjects(
      options({ prefix: 'round-trip', credentials: async () => server.credentials }),
    );
    const store = new ContentAddressedBlobStore(objects);
    const writes = jest.spyOn(objects, 'write');
    const ref = await store.put({ bytes });
    expect(ref.key).toMatch(/^sha256\/[0-9a-f]{2}\/[0-9a-f]{64}$/);
    expect(Buffer.from(await store.get(ref)).equals(bytes)).toBe(true);
    expect(await s3BlobStore(options({ prefix: 'round-trip' })).put({ bytes })).toEqual(ref);
    expect(await store.put({ bytes: Buffer.from(bytes) })).toEqual(ref);
    expect(writes).toHaveBeenCalledTimes(1);
  });

  test('objects live under the store prefix: a store with another prefix does not find them', async () => {
    const ref = await s3BlobStore(options({ prefix: 'turns/a/' })).put({ bytes });
    await expect(s3BlobStore(options({ prefix: 'turns/b' })).get(ref)).rejects.toMatchObject({
      code: 'blob-missing',
      message: expect.stringContaining(
        `blob ${ref.key} is not in s3://${bucket}/turns/b/ (${server.endpoint})`,
      ),
    });
    expect(Buffer.from(await s3BlobStore(options({ prefix: 'turns/a' })).get(ref)).equals(bytes)).toBe(true);
  });

  test('an object replaced in the bucket is refused as corrupt', async () => {
    const objects = new S3BlobObjects(options({ prefix: 'corrupt' }));
    const store = new ContentAddressedBlobStore(objects);
    const ref = await store.put({ bytes: Buffer.from('the original') });
    await objects.write(ref.key, Buffer.from('the replaced'));
    await expect(store.get(ref)).rejects.toMatchObject({ code: 'blob-corrupt', key: ref.key });
  });

  test('encrypted with the turn keys, the bucket holds no plaintext and the store reads it back', async () => {
    const objects = new S3BlobObjects(options({ prefix: 'sealed' }));
    const keys = parseEncryptionKeys(`k0:${randomBytes(32).toString('base64')}`);
    const store = new EncryptedBlobStore({ objects, keys });
    const plaintext = Buffer.from('the account page, card 4111 1111 1111 1111');
    const ref = await store.put({ bytes: plaintext });
    expect(Buffer.from((await objects.read(ref.key)) ?? []).toString('latin1')).not.toContain('4111');
    expect(Buffer.from(await store.get(ref)).equals(plaintext)).toBe(true);
  });

  test('a bucket that does not exist is blob-store-failed, with what S3 said', async () => {
    await expect(s3BlobStore(options({ bucket: 'no-such-bucket' })).put({ bytes })).rejects.toMatchObject({
      code: 'blob-store-failed',
      message: expect.stringMatching(
        /^could not store blob sha256\/.* in s3:\/\/no-such-bucket\/ .*: S3 answered NoSuchBucket/,
      ),
    });
  });

  (checksSignatures ? test : test.skip)('a wrong secret is refused, with what S3 said', async () => {
    const wrong = { ...server.credentials, secretAccessKey: 'not the secret' };
    await expect(s3BlobStore(options({ credentials: wrong })).put({ bytes })).rejects.toMatchObject({
      code: 'blob-store-failed',
      message: expect.stringContaining('S3 answered SignatureDoesNotMatch'),
    });
  });
}

const S3rver = s3rverClass();
(S3rver ? describe : describe.skip)(
  S3rver ? 's3rver' : 's3rver (skipped: the s3rver package is not installed; `npm ci` installs it)',
  () => behavesAsAnS3Store(() => startS3rver(S3rver as S3rverClass), { checksSignatures: false }),
);

const minio = minioBinary();
(minio ? describe : describe.skip)(
  minio
    ? `MinIO (${minio})`
    : 'MinIO (skipped: no minio binary; set DURABLE_TURNS_TEST_MINIO or put one on the PATH or in ' +
        `${path.join(defaultCacheDir(), 'minio')}: GOFLAGS=-mod=mod go install github.com/minio/minio@latest builds one)`,
  () => behavesAsAnS3Store(() => startMinio(minio as string), { checksSignatures: true }),
);

test('a server that is not there is blob-store-failed, with the cause', async () => {
  const store = s3BlobStore({
    bucket,
    endpoint: `http://127.0.0.1:${await freePort()}`,
    credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
  });
  await expect(store.put({ bytes: Buffer.from('x') })).rejects.toMatchObject({
    code: 'blob-store-failed',
    message: expect.stringContaining('fetch failed: connect ECONNREFUSED'),
  });
});

test('options given in code are checked as the environment is: no bucket or prefix S3 or a URL would change', () => {
  const credentials = { accessKeyId: 'a', secretAccessKey: 'b' };
  expect(() => new S3BlobObjects({ bucket, prefix: 'a/../b', credentials })).toThrow(
    expect.objectContaining({
      code: 'blob-store-invalid',
      message: 'invalid S3 blob store: prefix: no "." or ".." segment',
    }),
  );
  expect(() => new S3BlobObjects({ bucket: 'x', credentials })).toThrow(/bucket: a bucket name/);
});

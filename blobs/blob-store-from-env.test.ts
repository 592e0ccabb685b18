import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { blobObjectsFromEnv, blobStoreFromEnv } from './blob-store-from-env';
import { EncryptedBlobStore } from './encrypted-blob-store';
import { S3BlobObjects } from './s3-blob-store';
import { s3OptionsFromEnv } from './s3-options-from-env';

const stateDir = '/var/lib/durable-turns';
const credentials = { AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret' };
const key = `k0:${randomBytes(32).toString('base64')}`;

describe('where blobs go', () => {
  test('unset or blank: a "blobs" folder in the state folder, in the clear', () => {
    for (const env of [{}, { DURABLE_TURNS_BLOB_STORE: '  ' }]) {
      const store = blobStoreFromEnv({ env, stateDir });
      expect(store.where).toBe('the blob folder /var/lib/durable-turns/blobs');
      expect(store).not.toBeInstanceOf(EncryptedBlobStore);
    }
  });

  test('file: names an absolute folder, as file:/path or file:///path', () => {
    for (const setting of ['file:/srv/blobs', 'file:///srv/blobs'])
      expect(blobObjectsFromEnv({ env: { DURABLE_TURNS_BLOB_STORE: setting }, stateDir }).where).toBe(
        'the blob folder /srv/blobs',
      );
    expect(
      blobObjectsFromEnv({ env: { DURABLE_TURNS_BLOB_STORE: 'file:/srv/my%20blobs' }, stateDir }).where,
    ).toBe('the blob folder /srv/my blobs');
  });

  test('s3:// names a bucket and a prefix; the query the server, the region and the URL style', () => {
    const env = {
      ...credentials,
      AWS_SESSION_TOKEN: 'token',
      DURABLE_TURNS_BLOB_STORE:
        's3://turn-blobs/prod/turns?endpoint=http://127.0.0.1:9000&region=eu-west-1&pathStyle=false',
    };
    expect(s3OptionsFromEnv({ setting: env.DURABLE_TURNS_BLOB_STORE, env })).toEqual({
      bucket: 'turn-blobs',
      prefix: 'prod/turns',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-1',
      pathStyle: false,
      credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token' },
    });
    expect(blobObjectsFromEnv({ env, stateDir })).toBeInstanceOf(S3BlobObjects);
  });

  test('s3:// without a region in the query takes AWS_REGION, then AWS_DEFAULT_REGION', () => {
    const setting = 's3://turn-blobs';
    expect(s3OptionsFromEnv({ setting, env: { ...credentials, AWS_REGION: 'us-west-2' } })).toMatchObject({
      region: 'us-west-2',
    });
    expect(
      s3OptionsFromEnv({ setting, env: { ...credentials, AWS_DEFAULT_REGION: 'ap-south-1' } }),
    ).toMatchObject({
      region: 'ap-south-1',
    });
    expect(s3OptionsFromEnv({ setting, env: credentials })).not.toHaveProperty('prefix');
  });

  test('with DURABLE_TURNS_ENCRYPTION_KEYS set, the store encrypts with them', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'env-blobs-'));
    try {
      const env = { DURABLE_TURNS_BLOB_STORE: `file:${folder}`, DURABLE_TURNS_ENCRYPTION_KEYS: key };
      const store = blobStoreFromEnv({ env, stateDir });
      expect(store).toBeInstanceOf(EncryptedBlobStore);
      const ref = await store.put({ bytes: Buffer.from('sealed') });
      expect(ref.key).toMatch(/^sealed\/k0\//);
      expect(Buffer.from(await store.get(ref)).toString()).toBe('sealed');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe('bad settings are refused at once, naming the variable and what was expected', () => {
  const refused = (env: NodeJS.ProcessEnv, problem: string | RegExp) =>
    expect(() => blobStoreFromEnv({ env, stateDir })).toThrow(
      expect.objectContaining({
        code: 'blob-store-invalid',
        message:
          problem instanceof RegExp ? expect.stringMatching(problem) : expect.stringContaining(problem),
      }),
    );

  test('a store of no known kind', () => {
    refused(
      { DURABLE_TURNS_BLOB_STORE: '/srv/blobs' },
      'DURABLE_TURNS_BLOB_STORE="/srv/blobs" names no kind of store. Expected DURABLE_TURNS_BLOB_STORE=file:/absolute/folder, or s3://bucket',
    );
    refused({ DURABLE_TURNS_BLOB_STORE: 'gs://bucket' }, 'names no kind of store');
  });

  test('a file: folder that is not a local absolute path', () => {
    refused(
      { DURABLE_TURNS_BLOB_STORE: 'file:blobs' },
      'DURABLE_TURNS_BLOB_STORE="file:blobs" is not a local absolute folder',
    );
    refused({ DURABLE_TURNS_BLOB_STORE: 'file://server/blobs' }, 'is not a local absolute folder');
  });

  test('credentials in the URL: they belong in the AWS variables, not in text that gets logged', () => {
    refused(
      { ...credentials, DURABLE_TURNS_BLOB_STORE: 's3://AKIA:secret@turn-blobs' },
      'DURABLE_TURNS_BLOB_STORE holds credentials: put them in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY instead',
    );
  });

  test('s3:// without credentials', () => {
    refused(
      { DURABLE_TURNS_BLOB_STORE: 's3://turn-blobs', AWS_SECRET_ACCESS_KEY: 'secret' },
      'DURABLE_TURNS_BLOB_STORE is s3://, but AWS_ACCESS_KEY_ID: unset: an s3:// blob store needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
    );
    refused(
      { DURABLE_TURNS_BLOB_STORE: 's3://turn-blobs', ...credentials, AWS_SECRET_ACCESS_KEY: ' ' },
      /AWS_SECRET_ACCESS_KEY: unset/,
    );
  });

  test('a query it does not understand: a misspelt option is not ignored', () => {
    refused(
      { ...credentials, DURABLE_TURNS_BLOB_STORE: 's3://turn-blobs?path_style=true' },
      /^DURABLE_TURNS_BLOB_STORE has a query it does not understand: query: Unrecognized key: "path_style"/,
    );
    refused({ ...credentials, DURABLE_TURNS_BLOB_STORE: 's3://turn-blobs?pathStyle=yes' }, /pathStyle: /);
  });

  test('a bucket, prefix, endpoint or region S3 would not take', () => {
    const s3 = (setting: string) => ({ ...credentials, DURABLE_TURNS_BLOB_STORE: setting });
    refused(s3('s3://Turn_Blobs'), /is not a valid S3 location: bucket: a bucket name: 3–63 lowercase/);
    refused(s3('s3://turn-blobs/a b'), /prefix: letters, digits/);
    refused(s3('s3://turn-blobs/%E0%A4%A'), /has a prefix whose %-escapes are not UTF-8/);
    refused(s3('s3://turn-blobs?endpoint=ftp://host'), /endpoint: an http:\/\/ or https:\/\/ URL/);
    refused(s3('s3://turn-blobs?region=Mars%201'), /region: a region such as us-east-1/);
  });

  test('bad encryption keys are refused as the payload codec refuses them', () => {
    expect(() => blobStoreFromEnv({ env: { DURABLE_TURNS_ENCRYPTION_KEYS: 'k0:short' }, stateDir })).toThrow(
      expect.objectContaining({ code: 'encryption-keys-invalid' }),
    );
  });
});

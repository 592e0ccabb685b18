import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { encryptionKeysFromEnv } from '../codec/encryption-keys';
import { quoted } from '../core/schema/format-issues';
import type { BlobObjects } from './blob-objects';
import { BlobStoreError } from './blob-store-error';
import { blobStoreFormat, blobStoreVariable } from './blob-store-variable';
import { ContentAddressedBlobStore } from './content-addressed-blob-store';
import { EncryptedBlobStore } from './encrypted-blob-store';
import { FileBlobObjects } from './file-blob-store';
import { S3BlobObjects } from './s3-blob-store';
import { s3OptionsFromEnv } from './s3-options-from-env';

/** A `file:` setting's folder: `file:/srv/blobs` or `file:///srv/blobs`, never a relative path. */
function folderOf(setting: string): string {
  const url = /^file:\//.test(setting) ? URL.parse(setting) : null;
  let folder: string | undefined;
  try {
    folder = url ? fileURLToPath(url) : undefined;
  } catch {
    // A file URL with a host (file://server/…): not a local folder.
  }
  if (folder === undefined)
    throw new BlobStoreError(
      `${blobStoreVariable}=${quoted(setting)} is not a local absolute folder. Expected ${blobStoreFormat}`,
      { code: 'blob-store-invalid' },
    );
  return folder;
}

/** Where the objects are: `DURABLE_TURNS_BLOB_STORE`, or `<stateDir>/blobs` when it is unset. */
export function blobObjectsFromEnv({
  env,
  stateDir,
}: {
  env: NodeJS.ProcessEnv;
  stateDir: string;
}): BlobObjects {
  const setting = env[blobStoreVariable]?.trim();
  if (!setting) return new FileBlobObjects(path.resolve(stateDir, 'blobs'));
  if (setting.startsWith('file:')) return new FileBlobObjects(folderOf(setting));
  if (setting.startsWith('s3://')) return new S3BlobObjects(s3OptionsFromEnv({ setting, env }));
  throw new BlobStoreError(
    `${blobStoreVariable}=${quoted(setting)} names no kind of store. Expected ${blobStoreFormat}`,
    { code: 'blob-store-invalid' },
  );
}

/**
 * The blob store the environment describes, encrypted with the turn keys when
 * `DURABLE_TURNS_ENCRYPTION_KEYS` is set (as the payload codec is). Bad settings throw at once, naming
 * the variable, rather than at the first file part.
 */
export function blobStoreFromEnv({
  env = process.env,
  stateDir,
}: {
  env?: NodeJS.ProcessEnv;
  /** The process's state folder (relative: to the working folder); blobs go in its `blobs` folder by default. */
  stateDir: string;
}): ContentAddressedBlobStore {
  const objects = blobObjectsFromEnv({ env, stateDir });
  const keys = encryptionKeysFromEnv(env);
  return keys ? new EncryptedBlobStore({ objects, keys }) : new ContentAddressedBlobStore(objects);
}

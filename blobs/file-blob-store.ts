import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { quoted } from '../core/schema/format-issues';
import type { BlobObjects } from './blob-objects';
import { BlobStoreError } from './blob-store-error';
import { ContentAddressedBlobStore } from './content-addressed-blob-store';

/** Whether a file-system call failed because the file (or a folder above it) is not there. */
function isAbsent(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === 'ENOENT';
}

/** The folders whose entries changed: the target's, and those above it up to the first one made. */
function foldersToSync({ target, created }: { target: string; created: string | undefined }): string[] {
  const folders = [path.dirname(target)];
  if (created === undefined) return folders;
  for (let folder = path.dirname(target); folder !== path.dirname(created); folder = path.dirname(folder))
    folders.push(path.dirname(folder));
  return folders;
}

async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Objects as files in a folder (created on demand), a key's `/` a subfolder. A write goes to a
 * temporary file beside its target, is flushed to disk, then renamed over the target: a rename is
 * atomic, so a reader sees the whole object or none, and processes writing the same key at once
 * each rename a whole copy of the same blob. A crash can leave a `.tmp` file behind, never a partial
 * object.
 */
export class FileBlobObjects implements BlobObjects {
  readonly where: string;

  constructor(readonly directory: string) {
    if (!path.isAbsolute(directory))
      throw new BlobStoreError(`a blob folder must be an absolute path, not ${quoted(directory)}`, {
        code: 'blob-store-invalid',
      });
    this.where = `the blob folder ${directory}`;
  }

  async has(key: string): Promise<boolean> {
    try {
      await stat(this.pathOf(key));
      return true;
    } catch (error) {
      if (isAbsent(error)) return false;
      throw error;
    }
  }

  async read(key: string): Promise<Uint8Array | undefined> {
    try {
      return await readFile(this.pathOf(key));
    } catch (error) {
      if (isAbsent(error)) return undefined;
      throw error;
    }
  }

  async write(key: string, bytes: Uint8Array): Promise<void> {
    const target = this.pathOf(key);
    const created = await mkdir(path.dirname(target), { recursive: true });
    const temporary = `${target}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
    try {
      const file = await open(temporary, 'wx');
      try {
        await file.writeFile(bytes);
        // Flushed before the rename: otherwise a crash could leave the new name on an empty file.
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    // The new names are entries of their folders: flushed too, or a crash could lose the object
    // that history already refers to.
    for (const folder of foldersToSync({ target, created })) await syncFolder(folder);
  }

  private pathOf(key: string): string {
    return path.join(this.directory, ...key.split('/'));
  }
}

/** The local default: blobs in the clear, as files under `directory`. */
export function fileBlobStore({ directory }: { directory: string }): ContentAddressedBlobStore {
  return new ContentAddressedBlobStore(new FileBlobObjects(directory));
}

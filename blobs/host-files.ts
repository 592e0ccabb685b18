import type { HostFiles } from '../core';
import type { BlobStore } from './blob-store';
import type { FileLimitsInput } from './file-limits';
import { toolFileKeeper } from './keep-files';
import { withFileBytes } from './with-file-bytes';

/** A host's file handling over `store` (none: only files within the inline limit are kept). */
export function hostFiles({ store, limits }: { store?: BlobStore; limits?: FileLimitsInput }): HostFiles {
  return {
    store: toolFileKeeper({ store, ...(limits ? { limits } : {}) }),
    read: (messages) => withFileBytes({ messages, store }),
  };
}

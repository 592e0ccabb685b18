import type { BlobStore } from './blob-store';
import { blobStoreFromEnv } from './blob-store-from-env';

/**
 * The store a host or client uses: the one given; none for `false`; unset, the environment's
 * (`DURABLE_TURNS_BLOB_STORE`, else `.state/blobs`), whose folder is made only when a file needs it.
 */
export function blobStoreOption(option: BlobStore | false | undefined): BlobStore | undefined {
  if (option === false) return undefined;
  return option ?? blobStoreFromEnv({ stateDir: '.state' });
}

import {
  type FilePart,
  FileRejectedError,
  filePartSchema,
  formatBytes,
  type StoreToolFiles,
  type ToolFile,
} from '../core';
import type { BlobStore } from './blob-store';
import { type FileLimits, type FileLimitsInput, fileLimitsSchema } from './file-limits';

/**
 * A file as the transcript keeps it: small ones inline (base64), larger ones in the blob store
 * (the part holds the reference and the digest), URLs as they are. Throws `FileRejectedError` for
 * a file over the size limit, one with a bad media type, or one the store could not take.
 */
export async function keepFile({
  file,
  label,
  store,
  limits,
}: {
  file: ToolFile;
  /** How the file is named in errors, e.g. `file 2 (image/png)`. */
  label: string;
  store: BlobStore | undefined;
  limits: FileLimits;
}): Promise<FilePart> {
  const base = { type: 'file' as const, mediaType: file.mediaType, ...nameOf(file) };
  const checked = filePartSchema.safeParse({ ...base, data: { base64: '' } });
  if (!checked.success)
    throw new FileRejectedError(
      `${label} has media type ${JSON.stringify(file.mediaType)}, which is not a media type such as image/png`,
      'file-invalid',
    );
  const { data } = file;
  if (!(data instanceof Uint8Array) && 'url' in data) return { ...base, data: { url: data.url } };
  const bytes = data instanceof Uint8Array ? data : Buffer.from(data.base64, 'base64');
  if (bytes.byteLength > limits.maxFileBytes)
    throw new FileRejectedError(
      `${label} is ${sizeOf(bytes.byteLength)}, over the limit of ${sizeOf(limits.maxFileBytes)} per file (maxFileBytes)`,
      'file-too-large',
    );
  if (bytes.byteLength <= limits.inlineMaxBytes)
    return {
      ...base,
      data: { base64: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64') },
    };
  if (!store)
    throw new FileRejectedError(
      `${label} is ${formatBytes(bytes.byteLength)}, over the ${formatBytes(limits.inlineMaxBytes)} kept inline, and this host has no blob store to keep it in`,
      'file-not-stored',
    );
  try {
    return { ...base, data: { blob: await store.put({ bytes }) } };
  } catch (error) {
    throw new FileRejectedError(
      `${label} (${formatBytes(bytes.byteLength)}) could not be stored: ${error instanceof Error ? error.message : String(error)}`,
      'file-not-stored',
    );
  }
}

/** How a host keeps the files its tools return (`runToolAttempt`'s `storeFiles`). */
export function toolFileKeeper({
  store,
  limits,
}: {
  store: BlobStore | undefined;
  limits?: FileLimitsInput;
}): StoreToolFiles {
  const parsed = fileLimitsSchema.parse(limits ?? {});
  return (files) =>
    Promise.all(
      files.map((file, index) =>
        keepFile({ file, label: `file ${index + 1} (${file.mediaType})`, store, limits: parsed }),
      ),
    );
}

function nameOf(file: ToolFile): { filename?: string } {
  return file.filename !== undefined ? { filename: file.filename } : {};
}

/** A size in a message about a limit: rounded for reading, exact for comparing. */
function sizeOf(bytes: number): string {
  return `${formatBytes(bytes)} (${bytes} bytes)`;
}

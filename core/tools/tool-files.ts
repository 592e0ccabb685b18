import { DurableTurnsError, hasMarker } from '../errors/durable-turns-error';
import type { FilePart } from '../schema/media';
import type { Message } from '../schema/messages';

/** A file a tool returns with its result: its bytes (or base64), or a URL the provider may fetch. */
export interface ToolFile {
  mediaType: string;
  filename?: string;
  data: Uint8Array | { base64: string } | { url: string };
}

const withFilesMarker = Symbol.for('durable-turns.tool-result-with-files');

/** A tool's result with files: made by `withFiles`, taken apart by the host that ran the tool. */
export class ToolResultWithFiles {
  readonly [withFilesMarker] = true;
  constructor(
    readonly content: unknown,
    readonly files: readonly ToolFile[],
  ) {}

  static isInstance(value: unknown): value is ToolResultWithFiles {
    return hasMarker(value, withFilesMarker);
  }
}

/**
 * A tool's result with files the model should see (a screenshot, a PDF): `return withFiles('The
 * page after login', [{ mediaType: 'image/png', data: png }])`. The content is what the model reads
 * first, as for any result; each file follows it. Large files are kept out of the transcript by the
 * host (in its blob store), and a file it cannot keep makes the output an error saying why.
 */
export function withFiles(content: unknown, files: readonly ToolFile[]): ToolResultWithFiles {
  return new ToolResultWithFiles(content, files);
}

/**
 * How a host keeps a tool's files: inline when small, in its blob store otherwise. It throws a
 * `FileRejectedError` for a file it will not keep (over the size limit, the store failing).
 */
export type StoreToolFiles = (files: readonly ToolFile[]) => Promise<FilePart[]>;

const fileRejectedMarker = Symbol.for('durable-turns.file-rejected');

/** A file that cannot be kept; `errorType` is what the call's error output says (`file-too-large`, `file-not-stored`). */
export class FileRejectedError extends DurableTurnsError {
  readonly [fileRejectedMarker] = true;
  constructor(
    message: string,
    readonly errorType: 'file-too-large' | 'file-not-stored' | 'file-invalid',
  ) {
    super(message, { code: 'file-rejected' });
    this.name = 'FileRejectedError';
  }

  static override isInstance(error: unknown): error is FileRejectedError {
    return hasMarker(error, fileRejectedMarker);
  }
}

/**
 * What a host does with files: keeps the ones its tools return, and reads kept ones back into the
 * messages of a model request (the provider gets the bytes; history holds only references).
 */
export interface HostFiles {
  store: StoreToolFiles;
  read: (messages: readonly Message[]) => Promise<Message[]>;
}

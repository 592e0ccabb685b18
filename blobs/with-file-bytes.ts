import type { FilePart, Message, ToolResultPart } from '../core';
import type { BlobStore } from './blob-store';

/**
 * The messages a model request sends, with every file the blob store keeps read back into the
 * part (base64), each blob read once per request. Messages without such files are returned as
 * they are: this runs before every request, and most have none.
 */
export async function withFileBytes({
  messages,
  store,
}: {
  messages: readonly Message[];
  store: BlobStore | undefined;
}): Promise<Message[]> {
  if (!messages.some(hasStoredFile)) return [...messages];
  const read = new Map<string, Promise<string>>();
  const bytesOf = (part: FilePart): Promise<FilePart> => {
    if (!('blob' in part.data)) return Promise.resolve(part);
    const { blob } = part.data;
    if (!store)
      throw new Error(
        `file ${part.mediaType} (${blob.key}) is in a blob store, and this host has none: give it the store the file was kept in`,
      );
    let base64 = read.get(blob.key);
    if (!base64) {
      base64 = store
        .get(blob)
        .then((bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'));
      read.set(blob.key, base64);
    }
    return base64.then((text) => ({ ...part, data: { base64: text } }));
  };
  return Promise.all(
    messages.map(async (message): Promise<Message> => {
      if (!hasStoredFile(message)) return message;
      if (message.role === 'user' && typeof message.content !== 'string')
        return {
          ...message,
          content: await Promise.all(message.content.map((p) => (p.type === 'file' ? bytesOf(p) : p))),
        };
      if (message.role === 'tool')
        return {
          ...message,
          content: await Promise.all(
            message.content.map(async (part): Promise<ToolResultPart> => {
              const files = part.output.files;
              if (!files?.some((f) => 'blob' in f.data)) return part;
              return { ...part, output: { ...part.output, files: await Promise.all(files.map(bytesOf)) } };
            }),
          ),
        };
      return message;
    }),
  );
}

function hasStoredFile(message: Message): boolean {
  if (message.role === 'user')
    return (
      typeof message.content !== 'string' &&
      message.content.some((p) => p.type === 'file' && 'blob' in p.data)
    );
  if (message.role === 'tool')
    return message.content.some((part) => part.output.files?.some((f) => 'blob' in f.data) ?? false);
  return false;
}

import { FileRejectedError, type Message } from '../core';
import type { BlobStore } from './blob-store';
import { type FileLimitsInput, fileLimitsSchema } from './file-limits';
import { keepFile } from './keep-files';

/**
 * A turn's input with its files kept as a transcript keeps them: large inline files moved to the
 * blob store before the turn starts (a 500 KB screenshot in a workflow's input would be in its
 * history, and every continue-as-new after). A file that cannot be kept is bad input: the error
 * names the message and part, and nothing starts.
 */
export async function keepInputFiles({
  messages,
  store,
  limits,
}: {
  messages: readonly Message[];
  store: BlobStore | undefined;
  limits?: FileLimitsInput;
}): Promise<Message[]> {
  const parsed = fileLimitsSchema.parse(limits ?? {});
  return Promise.all(
    messages.map(async (message, m) => {
      if (message.role !== 'user' || typeof message.content === 'string') return message;
      if (!message.content.some((part) => part.type === 'file' && 'base64' in part.data)) return message;
      const content = await Promise.all(
        message.content.map(async (part, p) => {
          if (part.type !== 'file' || !('base64' in part.data)) return part;
          const label = `input message ${m + 1}, part ${p + 1} (${part.mediaType})`;
          try {
            return await keepFile({
              file: {
                mediaType: part.mediaType,
                data: part.data,
                ...(part.filename !== undefined ? { filename: part.filename } : {}),
              },
              label,
              store,
              limits: parsed,
            });
          } catch (error) {
            if (FileRejectedError.isInstance(error)) throw new Error(`invalid turn input: ${error.message}`);
            throw error;
          }
        }),
      );
      return { ...message, content };
    }),
  );
}

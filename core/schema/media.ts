import { z } from 'zod';

/**
 * Where a file part's bytes are: inline (base64, small parts only), at a URL (passed to the
 * provider as a URL: durable-turns never fetches it), or in the blob store (a claim check: history
 * holds the reference and the digest, never the bytes).
 */
export const blobRefSchema = z.object({
  /** The store's key for the bytes (content-addressed: the same bytes, the same key). */
  key: z.string().min(1),
  /** SHA-256 of the bytes, hex: checked when they are read back. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** How many bytes (before any encryption). */
  bytes: z.number().int().nonnegative(),
});
export type BlobRef = z.infer<typeof blobRefSchema>;

export const fileDataSchema = z.union([
  z.strictObject({ base64: z.string() }),
  z.strictObject({ url: z.url() }),
  z.strictObject({ blob: blobRefSchema }),
]);
export type FileData = z.infer<typeof fileDataSchema>;

/**
 * An image, a PDF or another file, in a user message or a tool's output. `mediaType` is a full
 * IANA media type (`image/png`, `application/pdf`).
 */
export const filePartSchema = z.object({
  type: z.literal('file'),
  mediaType: z.string().regex(/^[\w.+-]+\/[\w.+-]+$/, 'a media type such as image/png'),
  filename: z.string().optional(),
  data: fileDataSchema,
});
export type FilePart = z.infer<typeof filePartSchema>;

/** How many bytes a file part holds (a URL's are not known here). */
export function fileBytes(data: FileData): number | undefined {
  if ('blob' in data) return data.blob.bytes;
  if ('base64' in data) {
    const padding = data.base64.endsWith('==') ? 2 : data.base64.endsWith('=') ? 1 : 0;
    return Math.floor((data.base64.length * 3) / 4) - padding;
  }
  return undefined;
}

/** A file part for people and logs: its kind, name and size, or its URL; never its bytes. */
export function describeFile(part: FilePart): string {
  const bytes = fileBytes(part.data);
  const where = 'url' in part.data ? ` at ${part.data.url}` : '';
  const name = part.filename ? ` ${part.filename}` : '';
  return `[${part.mediaType}${name}${bytes === undefined ? '' : `, ${formatBytes(bytes)}`}${where}]`;
}

/** `532 B`, `48.2 KB`, `1.4 MB` (decimal units, as file browsers show them). */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

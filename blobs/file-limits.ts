import { z } from 'zod';

/**
 * How a host keeps files. Parts up to `inlineMaxBytes` stay in the transcript as base64 (a
 * screenshot thumbnail costs history less than a store round trip); larger ones go to the blob
 * store and history holds a reference. A file over `maxFileBytes` is not kept at all: a tool's
 * becomes an error output saying so, a caller's input is refused before the turn starts.
 */
export const fileLimitsSchema = z.object({
  /** Default 64 KiB: three such parts inline still leave a turn far inside Temporal's 2 MiB payload. */
  inlineMaxBytes: z
    .number()
    .int()
    .nonnegative()
    .default(64 * 1024),
  /** Default 20 MiB, the most the large providers take per image. */
  maxFileBytes: z
    .number()
    .int()
    .positive()
    .default(20 * 1024 * 1024),
});
export type FileLimits = z.infer<typeof fileLimitsSchema>;
export type FileLimitsInput = z.input<typeof fileLimitsSchema>;

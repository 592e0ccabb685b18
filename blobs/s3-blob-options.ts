import { z } from 'zod';

/** A key prefix S3 and URLs keep as written: no empty, `.` or `..` segment (URLs collapse those). */
const prefixSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*\/?$/,
    'letters, digits, ".", "_", "-" in "/"-separated segments',
  )
  .refine((prefix) => !prefix.split('/').some((segment) => /^\.+$/.test(segment)), 'no "." or ".." segment');

/** Where an S3-compatible store's objects are; credentials are passed beside these (never parsed from text). */
export const s3LocationSchema = z.strictObject({
  /** S3's rules for a bucket name (lowercase, 3–63 characters), which also make it a DNS label. */
  bucket: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'a bucket name: 3–63 lowercase letters, digits, "." or "-"'),
  /** Keys go under it: `blobs/` → `blobs/sha256/ab/…`. */
  prefix: prefixSchema.optional(),
  /** The server, e.g. `http://127.0.0.1:9000`; default AWS S3 in `region`. */
  endpoint: z.url({ protocol: /^https?$/, error: 'an http:// or https:// URL' }).optional(),
  /** What requests are signed for: default `us-east-1` (what most S3-compatible servers accept). */
  region: z
    .string()
    .regex(/^[a-z0-9-]{1,64}$/, 'a region such as us-east-1')
    .optional(),
  /**
   * `endpoint/bucket/key` rather than `bucket.endpoint/key`. Default: path style with an endpoint
   * (local and most S3-compatible servers need it, and a bucket is no host name on 127.0.0.1),
   * virtual-hosted on AWS.
   */
  pathStyle: z.boolean().optional(),
});
export type S3Location = z.infer<typeof s3LocationSchema>;

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  /** For temporary credentials (an assumed role). */
  sessionToken?: string;
}

export interface S3BlobStoreOptions extends S3Location {
  /** Fixed, or asked for before each request (credentials that expire and are renewed). */
  credentials: S3Credentials | (() => Promise<S3Credentials>);
  /** How long one call may take, its retries included (default 30 s). */
  timeoutMs?: number;
}

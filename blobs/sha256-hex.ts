import { createHash } from 'node:crypto';

/** The SHA-256 of the bytes, as 64 lowercase hex digits (the form `BlobRef.sha256` holds). */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

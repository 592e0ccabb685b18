import { strFromU8, strToU8, unzlibSync, zlibSync } from 'fflate';

/**
 * JSON, zlib-compressed, in base64: for values that must cross a single Temporal payload (2 MiB at
 * most) and repeat themselves a great deal — a long turn's transcript, events and carried state.
 * Pure JavaScript, so workflow code can use it.
 */
export function packJson(value: unknown): string {
  return toBase64(zlibSync(strToU8(JSON.stringify(value)), { level: 6 }));
}

export function unpackJson<T>(packed: string): T {
  return JSON.parse(strFromU8(unzlibSync(fromBase64(packed)))) as T;
}

// Workflow code has no Buffer and no guaranteed btoa: a small base64 of its own.
const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const lookup = new Map([...alphabet].map((c, i) => [c, i]));

function toBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = ((bytes[i] ?? 0) << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    out += i + 1 < bytes.length ? alphabet[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.length ? alphabet[n & 63] : '=';
  }
  return out;
}

function fromBase64(text: string): Uint8Array {
  const clean = text.replace(/=+$/, '');
  const bytes = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let j = 0;
  for (let i = 0; i < clean.length; i += 4) {
    const n =
      ((lookup.get(clean[i] ?? 'A') ?? 0) << 18) |
      ((lookup.get(clean[i + 1] ?? 'A') ?? 0) << 12) |
      ((lookup.get(clean[i + 2] ?? 'A') ?? 0) << 6) |
      (lookup.get(clean[i + 3] ?? 'A') ?? 0);
    if (j < bytes.length) bytes[j++] = (n >> 16) & 255;
    if (j < bytes.length) bytes[j++] = (n >> 8) & 255;
    if (j < bytes.length) bytes[j++] = n & 255;
  }
  return bytes;
}

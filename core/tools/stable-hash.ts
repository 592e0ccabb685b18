import { canonicalJson } from './canonical-json';

// Read once: in Temporal's workflow sandbox (a node:vm context) every read of a global such as
// `Math` goes through the context's property interceptor. Read per character, it made hashing a
// long transcript there take 300 ms instead of 10.
const imul = Math.imul;

/**
 * A short deterministic hash (two 32-bit FNV-1a lanes) of a value's canonical JSON. Not
 * cryptographic: it tells results apart for loop detection and observers, in pure code that
 * cannot reach `node:crypto`.
 */
export function stableHash(value: unknown): string {
  const text = typeof value === 'string' ? value : canonicalJson(value);
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = imul(h1 ^ c, 0x01000193);
    h2 = imul(h2 ^ c, 0x5bd1e995);
  }
  return (h1 >>> 0).toString(16).padStart(8, '0') + (h2 >>> 0).toString(16).padStart(8, '0');
}

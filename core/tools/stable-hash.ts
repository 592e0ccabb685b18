import { canonicalJson } from './canonical-json';

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
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
  }
  return (h1 >>> 0).toString(16).padStart(8, '0') + (h2 >>> 0).toString(16).padStart(8, '0');
}

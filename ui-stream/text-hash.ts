/** FNV-1a's offset basis: the hash of no text. */
export const emptyTextHash = 0x811c9dc5;

/**
 * 32-bit FNV-1a over UTF-16 code units, continued from `hash`: a part's text is hashed as it grows,
 * so a stream position can say what the client was shown without carrying it.
 */
export function textHash(text: string, hash = emptyTextHash): number {
  let h = hash;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

// Read once: in Temporal's workflow sandbox every read of a global such as `Math` goes through the
// context's property interceptor, and the sketch loop runs once per character.
const { imul, max, min } = Math;
const parseInteger = Number.parseInt;

/** Bins of the one-permutation MinHash; 64 makes the 95 % threshold 61 matching bins of 64. */
const bins = 64;
/** Characters per shingle: long enough that ordinary text shares few by chance. */
const shingleLength = 4;
/** At most this many characters of a result are read: the first and the last half of it. */
const sampledChars = 8_192;
/** Above every 26-bit shingle value: the bin is empty. */
const emptyBin = 0x4000000;
const emptyText = '----';

/**
 * A fixed-size digest of a tool result from which {@link resultSimilarity} estimates how alike two
 * results are. The loop detector carries the previous result of each tool across continue-as-new,
 * so it compares digests, never whole results: a one-permutation MinHash over the 4-character
 * shingles of the result's JSON text (each shingle hashed once; each of 64 bins keeps the least
 * hash that falls in it, its low 16 bits written as 4 hex digits) and the text's length. About 260
 * characters, whatever the result's size.
 *
 * The cost is bounded: at most 8,192 characters are read (the first and last 4,096 of a longer
 * text; its length still counts). It is deterministic — plain arithmetic on the recorded result —
 * so a replay computes the same digest.
 */
export function sketchResult(content: unknown, minChars = 0): string {
  const text = typeof content === 'string' ? content : (JSON.stringify(content) ?? '');
  // Too short to be judged (see `minChars`): its length is all anyone will read of it.
  if (text.length < minChars) return `${text.length.toString(36)}:`;
  const sample =
    text.length <= sampledChars
      ? text
      : text.slice(0, sampledChars / 2) + text.slice(text.length - sampledChars / 2);
  const mins: number[] = new Array(bins).fill(emptyBin);
  const add = (hash: number): void => {
    // fmix32 (MurmurHash3's finalizer) spreads the shingle hash before it picks a bin.
    let h = hash ^ (hash >>> 16);
    h = imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    const bin = h >>> 26;
    const value = h & 0x3ffffff;
    if (value < (mins[bin] as number)) mins[bin] = value;
  };
  // A polynomial hash of the last four characters, rolled along the text.
  const base = 0x01000193;
  const outWeight = imul(imul(base, base), base);
  let rolling = 0;
  for (let i = 0; i < sample.length; i++) {
    if (i >= shingleLength) rolling = (rolling - imul(sample.charCodeAt(i - shingleLength), outWeight)) | 0;
    rolling = (imul(rolling, base) + sample.charCodeAt(i)) | 0;
    if (i >= shingleLength - 1) add(rolling);
  }
  // A text shorter than a shingle is one shingle of its own.
  if (sample.length < shingleLength) add(rolling ^ sample.length);
  let digest = `${text.length.toString(36)}:`;
  for (const min of mins)
    digest += min === emptyBin ? emptyText : (min & 0xffff).toString(16).padStart(4, '0');
  return digest;
}

/**
 * How alike two results are, from their sketches: the share of bins (among those either result
 * filled) holding the same least shingle — an estimate of the Jaccard similarity of their shingle
 * sets — and never more than the ratio of their lengths, so a result that grew or shrank by more
 * than the threshold is not "the same" even where only its middle, unread, changed.
 */
export function resultSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  const lengthA = sketchedLength(a);
  const lengthB = sketchedLength(b);
  const binsA = a.slice(a.indexOf(':') + 1);
  const binsB = b.slice(b.indexOf(':') + 1);
  const longer = max(lengthA, lengthB);
  const lengthRatio = longer === 0 ? 1 : min(lengthA, lengthB) / longer;
  let filled = 0;
  let same = 0;
  for (let i = 0; i < binsA.length; i += 4) {
    const x = binsA.slice(i, i + 4);
    const y = binsB.slice(i, i + 4);
    if (x === emptyText && y === emptyText) continue;
    filled += 1;
    if (x === y) same += 1;
  }
  const shingles = filled === 0 ? 1 : same / filled;
  return min(shingles, lengthRatio);
}

/** The length of the sketched result's text. */
export function sketchedLength(sketch: string): number {
  return parseInteger(sketch.slice(0, sketch.indexOf(':')), 36);
}

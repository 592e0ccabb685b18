/**
 * Tool results cross process boundaries and land in transcripts: keep only what JSON keeps. Throws
 * for a value JSON cannot hold (a BigInt, a cycle, a `toJSON` that throws, a bare function).
 */
export function toJson(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'string') return value;
  const text = JSON.stringify(value);
  // A function or a symbol has no JSON at all: say so rather than let `JSON.parse` misreport it.
  if (text === undefined) throw new TypeError(`a ${typeof value} has no JSON form`);
  return JSON.parse(text) as unknown;
}

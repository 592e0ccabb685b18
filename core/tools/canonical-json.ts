/**
 * JSON with object keys sorted at every depth, so two argument objects that mean the same thing
 * compare equal (`{a:1,b:2}` and `{b:2,a:1}`). Used for loop detection and result hashes.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  // fromEntries defines own properties, so a `__proto__` key stays a key instead of a prototype.
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}

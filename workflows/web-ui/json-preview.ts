/**
 * The first `maxChars` characters of a value's JSON, ending in `…` when cut, for one-line labels.
 * It writes only as much as it shows: a 1 MiB argument costs what its first characters cost, not
 * a full `JSON.stringify` (workflow code runs in a sandbox where every step is slow). Values are
 * parsed JSON (what a model sends), so nothing here deals with cycles, `toJSON` or bigints.
 */
export function jsonPreview({ value, maxChars }: { value: unknown; maxChars: number }): string {
  let out = '';
  // false once the budget is spent: writers stop at once.
  const put = (text: string): boolean => {
    const room = maxChars - out.length;
    if (text.length <= room) {
      out += text;
      return true;
    }
    out += `${text.slice(0, Math.max(0, room - 1))}…`;
    return false;
  };
  // A string longer than the room is cut before it is quoted: one more character than fits is
  // enough for `put` to see that it was cut.
  const str = (s: string) => put(JSON.stringify(s.length > maxChars ? s.slice(0, maxChars) : s));
  const write = (v: unknown): boolean => {
    if (typeof v === 'string') return str(v);
    if (v === null || typeof v !== 'object') return put(v === undefined ? 'null' : String(v));
    if (Array.isArray(v)) {
      if (!put('[')) return false;
      for (let i = 0; i < v.length; i += 1) if ((i > 0 && !put(',')) || !write(v[i])) return false;
      return put(']');
    }
    if (!put('{')) return false;
    let first = true;
    const record = v as Record<string, unknown>;
    for (const key in record) {
      if (record[key] === undefined) continue;
      if ((!first && !put(',')) || !str(key) || !put(':') || !write(record[key])) return false;
      first = false;
    }
    return put('}');
  };
  write(value);
  return out;
}

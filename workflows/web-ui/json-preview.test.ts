import { jsonPreview } from './json-preview';

describe('jsonPreview', () => {
  test('a value that fits reads exactly as its JSON', () => {
    const value = { path: 'notes/monday.md', lines: [1, 2], deep: { ok: true, none: null }, text: 'a "q"\n' };
    expect(jsonPreview({ value, maxChars: 200 })).toBe(JSON.stringify(value));
    expect(jsonPreview({ value: 'plain text', maxChars: 200 })).toBe('"plain text"');
    expect(jsonPreview({ value: 42, maxChars: 200 })).toBe('42');
  });

  test('a value that does not fit is cut at the limit and says so with an ellipsis', () => {
    const value = { path: 'notes/monday.md', body: 'x'.repeat(100) };
    const preview = jsonPreview({ value, maxChars: 40 });
    expect(preview).toHaveLength(40);
    expect(preview.endsWith('…')).toBe(true);
    expect(JSON.stringify(value).startsWith(preview.slice(0, -1))).toBe(true);
  });

  test('a value exactly as long as the limit is not cut', () => {
    const value = { a: 'bcd' };
    expect(jsonPreview({ value, maxChars: JSON.stringify(value).length })).toBe('{"a":"bcd"}');
  });

  test('a 1 MiB argument costs what its preview costs: it is not serialised whole', () => {
    const huge = { content: 'y'.repeat(1 << 20), items: Array.from({ length: 100_000 }, (_, i) => i) };
    const stringify = jest.spyOn(JSON, 'stringify');
    const preview = jsonPreview({ value: huge, maxChars: 80 });
    const quoted = stringify.mock.calls.map(([s]) => (typeof s === 'string' ? s.length : 0));
    stringify.mockRestore();
    expect(preview).toHaveLength(80);
    expect(preview.startsWith('{"content":"yyy')).toBe(true);
    // Only cut strings were quoted: none longer than the limit.
    expect(Math.max(...quoted)).toBeLessThanOrEqual(80);
  });
});

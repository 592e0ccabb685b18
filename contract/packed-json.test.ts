import { randomBytes } from 'node:crypto';
import { fromBase64, packJson, toBase64, unpackJson } from './packed-json';

describe('packed JSON', () => {
  test('base64 is exactly what Node writes, for every length modulo three, and reads back', () => {
    for (const length of [0, 1, 2, 3, 4, 5, 6, 7, 100, 65_537, 1_000_001]) {
      const bytes = randomBytes(length);
      const text = toBase64(bytes);
      expect(text).toBe(bytes.toString('base64'));
      expect(Buffer.from(fromBase64(text)).equals(bytes)).toBe(true);
    }
  });

  test('base64 without its padding reads back too', () => {
    const bytes = randomBytes(5);
    expect(Buffer.from(fromBase64(bytes.toString('base64').replace(/=+$/, ''))).equals(bytes)).toBe(true);
  });

  test('a character outside base64 is an error naming where it is, not silently a zero', () => {
    expect(() => fromBase64('QUJD\nREVG')).toThrow('not base64: character 4 is "\\n"');
  });

  test('any JSON value survives packing, text in any script included', () => {
    const value = { text: 'naïve 日本語 😀', n: [1, 2.5, null], nested: { ok: true } };
    expect(unpackJson(packJson(value))).toEqual(value);
  });
});

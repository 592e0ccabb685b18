import { PrefixDigests } from './prefix-digests';

const digests = () => new PrefixDigests((item: { text: string }) => item.text);

describe('prefix digests', () => {
  test('a prefix digest depends on every item in it, not only the last', () => {
    const a = [{ text: 'one' }, { text: 'two' }, { text: 'three' }];
    const b = [{ text: 'uno' }, { text: 'two' }, { text: 'three' }];
    expect(digests().at(a, 3)).not.toBe(digests().at(b, 3));
    expect(digests().at(a, 0)).toBe('');
  });

  test('the same items give the same digests, whichever instance computes them and in what steps', () => {
    const items = Array.from({ length: 10 }, (_, i) => ({ text: `m${i}` }));
    const stepwise = digests();
    const steps = [2, 5, 5, 10].map((n) => stepwise.at(items, n));
    const copies = items.map((m) => ({ ...m }));
    expect([2, 5, 5, 10].map((n) => digests().at(copies, n))).toEqual(steps);
  });

  test('each item is hashed once while the list only grows, whatever prefixes are asked for', () => {
    let hashed = 0;
    const counting = new PrefixDigests((item: { text: string }) => {
      hashed += 1;
      return item.text;
    });
    const items = Array.from({ length: 6 }, (_, i) => ({ text: `m${i}` }));
    const full = counting.at(items, 6);
    expect(counting.at(items, 3)).toBe(digests().at(items, 3));
    expect(counting.at(items, 6)).toBe(full);
    expect(counting.at([...items, { text: 'm6' }], 7)).toBe(digests().at([...items, { text: 'm6' }], 7));
    expect(hashed).toBe(7);
  });

  test('an item replaced in a list already digested changes the digests from it on', () => {
    const items = Array.from({ length: 6 }, (_, i) => ({ text: `m${i}` }));
    const kept = digests();
    const before = [3, 6].map((n) => kept.at(items, n));
    const replaced = [...items];
    replaced[4] = { text: 'changed' };
    expect(kept.at(replaced, 3)).toBe(before[0]);
    expect(kept.at(replaced, 6)).not.toBe(before[1]);
    expect(kept.at(replaced, 6)).toBe(digests().at(replaced, 6));
    // And back: the original list still gives its own digest.
    expect(kept.at(items, 6)).toBe(before[1]);
  });
});

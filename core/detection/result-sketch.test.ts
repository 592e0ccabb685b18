import { resultSimilarity, sketchResult } from './result-sketch';

const listing = (stamp: string) =>
  `${Array.from({ length: 60 }, (_, i) => `src/module-${i}.ts  ${1000 + i * 37} bytes`).join('\n')}\ngenerated ${stamp}`;

const alike = (a: unknown, b: unknown) => resultSimilarity(sketchResult(a), sketchResult(b));

describe('result sketches', () => {
  it('finds a result exactly like itself', () => {
    expect(alike(listing('10:00'), listing('10:00'))).toBe(1);
  });

  it('finds two results that differ in one small place at least 95 % alike', () => {
    expect(alike(listing('10:00:01'), listing('10:00:02'))).toBeGreaterThanOrEqual(0.95);
  });

  it('finds unrelated results unlike', () => {
    const other = Array.from({ length: 60 }, (_, i) => `line ${i}: ${(i * 7919).toString(36)} error`).join(
      '\n',
    );
    expect(alike(listing('10:00'), other)).toBeLessThan(0.5);
  });

  it('finds short results that differ unlike, however short', () => {
    expect(alike('1', '2')).toBe(0);
    expect(alike('11', '12')).toBe(0);
    expect(alike('', 'x')).toBe(0);
    expect(alike('', '')).toBe(1);
  });

  it('does not call a result alike one much longer or shorter, even where the unread middle grew', () => {
    const long = `${'a'.repeat(5_000)}${'b'.repeat(20_000)}${'c'.repeat(5_000)}`;
    const longer = `${'a'.repeat(5_000)}${'b'.repeat(40_000)}${'c'.repeat(5_000)}`;
    expect(alike(long, longer)).toBeLessThan(0.95);
    expect(alike('x'.repeat(100), 'x'.repeat(200))).toBeLessThanOrEqual(0.5);
  });

  it('compares structured results by their JSON text', () => {
    const rows = (n: number) => ({
      rows: Array.from({ length: 50 }, (_, i) => ({ id: i, name: `row ${i}` })),
      n,
    });
    expect(alike(rows(1), rows(2))).toBeGreaterThanOrEqual(0.95);
    expect(alike({ a: 1 }, '{"a":1}')).toBe(1);
  });

  it('is the same small size whatever the result’s size, and the same for the same result', () => {
    const small = sketchResult('x'.repeat(10));
    const huge = sketchResult('y'.repeat(1_000_000));
    expect(huge.length).toBeLessThan(300);
    expect(huge.length - small.length).toBeLessThanOrEqual(3);
    expect(sketchResult(listing('t'))).toBe(sketchResult(listing('t')));
  });
});

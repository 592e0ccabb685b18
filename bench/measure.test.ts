import { medianInterval } from './measure';

describe('medianInterval', () => {
  test('a sample with no spread has an interval of width zero at its value', () => {
    expect(medianInterval([1.2, 1.2, 1.2, 1.2])).toEqual({ low: 1.2, high: 1.2 });
  });

  test('holds the median, and is wider for a noisier sample of the same median', () => {
    const tight = [0.98, 0.99, 1, 1, 1.01, 1.02, 0.99, 1.01, 1, 1];
    const loose = [0.7, 0.8, 1, 1, 1.2, 1.3, 0.9, 1.1, 1, 1];
    const a = medianInterval(tight);
    const b = medianInterval(loose);
    for (const { low, high } of [a, b]) {
      expect(low).toBeLessThanOrEqual(1);
      expect(high).toBeGreaterThanOrEqual(1);
    }
    expect(b.high - b.low).toBeGreaterThan(a.high - a.low);
  });

  test('gives the same interval for the same rounds (a fixed seed), narrower at a lower confidence', () => {
    const rounds = Array.from({ length: 30 }, (_, i) => 1 + ((i * 7919) % 13) / 50);
    expect(medianInterval(rounds)).toEqual(medianInterval(rounds));
    const ninety = medianInterval(rounds);
    const half = medianInterval(rounds, { confidence: 0.5 });
    expect(half.high - half.low).toBeLessThan(ninety.high - ninety.low);
    expect(half.low).toBeGreaterThanOrEqual(ninety.low);
    expect(half.high).toBeLessThanOrEqual(ninety.high);
  });

  test('an empty sample has no interval', () => {
    expect(medianInterval([])).toEqual({ low: Number.NaN, high: Number.NaN });
  });
});

import { PooledRandomIdGenerator } from './pooled-random-id-generator';

describe('pooled random ids', () => {
  // Several pools' worth, so ids drawn across a refill are covered.
  const count = 10_000;

  test('span ids are 16 lowercase hex digits, and no two alike', () => {
    const ids = new PooledRandomIdGenerator();
    const drawn = Array.from({ length: count }, () => ids.generateSpanId());
    for (const id of drawn) expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(new Set(drawn).size).toBe(count);
  });

  test('trace ids are 32 lowercase hex digits, and no two alike', () => {
    const ids = new PooledRandomIdGenerator();
    const drawn = Array.from({ length: count }, () => ids.generateTraceId());
    for (const id of drawn) expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(drawn).size).toBe(count);
  });

  test('two generators draw different ids', () => {
    expect(new PooledRandomIdGenerator().generateSpanId()).not.toBe(
      new PooledRandomIdGenerator().generateSpanId(),
    );
  });

  test('every hex digit turns up in every position (the bytes are random, not a counter)', () => {
    const ids = new PooledRandomIdGenerator();
    const seen = Array.from({ length: 16 }, () => new Set<string>());
    for (let i = 0; i < 2_000; i++) {
      const id = ids.generateSpanId();
      for (let at = 0; at < id.length; at++) seen[at]?.add(id.charAt(at));
    }
    // 2,000 draws miss a given digit in a given position with probability (15/16)^2000 ≈ 1e-56.
    for (const digits of seen) expect(digits.size).toBe(16);
  });
});

import type { FuzzLabel } from './fuzz-case';
import { fuzzCase, fuzzCases } from './fuzz-cases';
import { fuzzSeed } from './fuzz-seed';

describe('fuzz cases', () => {
  it('are the same for the same seed, and case i can be rebuilt alone', () => {
    const first = [...fuzzCases(42, 20)];
    expect([...fuzzCases(42, 20)]).toEqual(first);
    expect(fuzzCase(42, 13)).toEqual(first[13]);
    expect([...fuzzCases(43, 20)]).not.toEqual(first);
  });

  it('bring up every kind of reply, and huge arguments, within a run of 300', () => {
    const labels = new Set<FuzzLabel>();
    let huge = 0;
    for (const c of fuzzCases(1, 300))
      for (const reply of c.replies) {
        labels.add(reply.label);
        if (reply.kind === 'stream' && reply.calls.some((call) => call.arguments.length > 100_000)) huge += 1;
      }
    expect([...labels].sort()).toEqual(
      [
        'answer',
        'bad-json',
        'clean-end-without-finish',
        'cut-mid-arguments',
        'garbage-chunk',
        'http-400',
        'http-429',
        'http-5xx',
        'reset',
        'stream-error-fatal',
        'stream-error-transient',
        'tool-calls',
        'wrong-shape',
      ].sort(),
    );
    expect(huge).toBeGreaterThan(0);
  });

  it('take their seed from FUZZ_SEED, and refuse one that is not a 32-bit integer', () => {
    expect(fuzzSeed({ FUZZ_SEED: '12345' })).toBe(12345);
    expect(() => fuzzSeed({ FUZZ_SEED: 'abc' })).toThrow(/FUZZ_SEED must be an integer/);
    expect(fuzzSeed({})).toBeGreaterThanOrEqual(0);
  });
});

import { type PlannableCall, planWaves } from './plan-waves';

const safe = (...resources: string[]): PlannableCall => ({ policy: { concurrencySafe: true, resources } });
const unsafe = (...resources: string[]): PlannableCall => ({ policy: { concurrencySafe: false, resources } });

/** mulberry32: a small seeded generator, so a failing case can be replayed from its seed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomBatch(random: () => number): PlannableCall[] {
  const keys = ['file:a', 'file:b', 'file:c', 'db:users'];
  const length = Math.floor(random() * 12);
  return Array.from({ length }, () => {
    const resources = keys.filter(() => random() < 0.25);
    return random() < 0.7 ? safe(...resources) : unsafe(...resources);
  });
}

describe('planWaves', () => {
  it('puts concurrency-safe calls without shared resources in one wave', () => {
    expect(planWaves([safe('file:a'), safe('file:b'), safe()], 'parallel')).toEqual([0, 0, 0]);
  });

  it('plans nothing for an empty batch', () => {
    expect(planWaves([], 'parallel')).toEqual([]);
  });

  it('makes a call that is not concurrency-safe a wave of its own and a barrier', () => {
    expect(planWaves([safe(), unsafe(), safe()], 'parallel')).toEqual([0, 1, 2]);
    expect(planWaves([unsafe(), unsafe(), safe(), safe()], 'parallel')).toEqual([0, 1, 2, 2]);
  });

  it('keeps model order across an unsafe call even when the later read touches nothing the write does', () => {
    expect(planWaves([safe('file:a'), unsafe('file:b'), safe('file:c')], 'parallel')).toEqual([0, 1, 2]);
  });

  it('starts a new wave when a safe call’s resources overlap a call already in the wave', () => {
    expect(planWaves([safe('file:a'), safe('file:a'), safe('file:b')], 'parallel')).toEqual([0, 1, 1]);
    expect(planWaves([safe('file:a', 'file:b'), safe('file:c'), safe('file:b')], 'parallel')).toEqual([
      0, 0, 1,
    ]);
  });

  it('checks conflicts only against the current wave', () => {
    expect(planWaves([safe('file:a'), safe('file:a'), safe('file:a')], 'parallel')).toEqual([0, 1, 2]);
    expect(planWaves([safe('file:a'), unsafe(), safe('file:a')], 'parallel')).toEqual([0, 1, 2]);
    expect(planWaves([safe('file:a'), safe('file:b'), safe('file:b'), safe('file:a')], 'parallel')).toEqual([
      0, 0, 1, 1,
    ]);
  });

  it('runs every call as its own wave in sequential mode', () => {
    expect(planWaves([safe(), safe(), unsafe(), safe()], 'sequential')).toEqual([0, 1, 2, 3]);
  });

  describe('on random batches (seeded)', () => {
    const seeds = Array.from({ length: 300 }, (_, i) => i + 1);

    it.each(['parallel', 'sequential'] as const)(
      'gives contiguous waves numbered from 0 without gaps (%s)',
      (mode) => {
        for (const seed of seeds) {
          const waves = planWaves(randomBatch(seeded(seed)), mode);
          waves.forEach((wave, i) => {
            const step = wave - (i === 0 ? -1 : waves[i - 1]!);
            if (step !== 0 && step !== 1) throw new Error(`seed ${seed}: waves ${waves.join(',')}`);
          });
        }
      },
    );

    it('never puts an unsafe call beside another, nor two calls sharing a resource in one wave', () => {
      for (const seed of seeds) {
        const calls = randomBatch(seeded(seed));
        const waves = planWaves(calls, 'parallel');
        const members = new Map<number, PlannableCall[]>();
        calls.forEach((call, i) => {
          members.set(waves[i]!, [...(members.get(waves[i]!) ?? []), call]);
        });
        for (const wave of members.values()) {
          if (wave.length > 1) expect(wave.every((c) => c.policy.concurrencySafe)).toBe(true);
          const keys = wave.flatMap((c) => [...new Set(c.policy.resources)]);
          expect(new Set(keys).size).toBe(keys.length);
        }
      }
    });

    it('plans a prefix of a batch as a prefix of the plan (a call arriving later in the stream changes no earlier wave)', () => {
      for (const seed of seeds) {
        const calls = randomBatch(seeded(seed));
        for (const mode of ['parallel', 'sequential'] as const) {
          const whole = planWaves(calls, mode);
          for (let k = 0; k <= calls.length; k++) {
            const prefix = planWaves(calls.slice(0, k), mode);
            if (JSON.stringify(prefix) !== JSON.stringify(whole.slice(0, k)))
              throw new Error(
                `seed ${seed}, ${mode}, prefix ${k}: planned ${prefix.join(',')} but the whole batch gives ${whole.join(',')}`,
              );
          }
        }
      }
    });

    it('opens as few waves as the rules allow: each new wave is forced by an unsafe call or a conflict', () => {
      for (const seed of seeds) {
        const calls = randomBatch(seeded(seed));
        const waves = planWaves(calls, 'parallel');
        calls.forEach((call, i) => {
          if (i === 0 || waves[i] === waves[i - 1]) return;
          const previous = calls.filter((_, j) => waves[j] === waves[i - 1]);
          const forced =
            !call.policy.concurrencySafe ||
            previous.some((p) => !p.policy.concurrencySafe) ||
            previous.some((p) => p.policy.resources.some((key) => call.policy.resources.includes(key)));
          if (!forced) throw new Error(`seed ${seed}: call ${i} opened wave ${waves[i]} without cause`);
        });
      }
    });
  });
});

import type { z } from 'zod';
import { type DetectionConfig, detectionConfigSchema } from '../schema/turn-config';
import { type DetectedAttempt, LoopDetector, type LoopVerdict } from './loop-detector';

const config = (overrides: z.input<typeof detectionConfigSchema> = {}): DetectionConfig =>
  detectionConfigSchema.parse(overrides);

/** An attempt whose result is `result` (its content, and as its hash). */
const attempt = (toolName: string, args: unknown, result = 'same'): DetectedAttempt => ({
  toolName,
  args,
  resultHash: result,
  content: result,
});

/** Observes each attempt in turn and returns the verdict kinds. */
function kinds(detector: LoopDetector, attempts: DetectedAttempt[]): LoopVerdict['kind'][] {
  return attempts.map((a) => detector.observe(a).kind);
}

const times = <T>(n: number, value: T): T[] => Array.from({ length: n }, () => value);

describe('LoopDetector', () => {
  it('warns on the third identical call with the same result and stops on the tenth, by default', () => {
    const detector = new LoopDetector(config());
    const verdicts = kinds(detector, times(10, attempt('search', { q: 'x' })));
    expect(verdicts).toEqual([...times(2, 'ok'), ...times(7, 'warn'), 'stop']);
  });

  it('tells the model what repeats in its warning and stop messages', () => {
    const detector = new LoopDetector(config({ warnAfter: 2, stopAfter: 3 }));
    detector.observe(attempt('search', { q: 'x' }));
    const warn = detector.observe(attempt('search', { q: 'x' }));
    const stop = detector.observe(attempt('search', { q: 'x' }));
    expect(warn).toEqual({
      kind: 'warn',
      message: expect.stringMatching(/^\[loop warning\] search was called 2 times with the same arguments/),
    });
    expect(stop).toEqual({
      kind: 'stop',
      message: expect.stringMatching(/^loop detected: search was called 3 times/),
    });
  });

  it('treats a repeated call that returns something new as progress', () => {
    const detector = new LoopDetector(config({ warnAfter: 2, stopAfter: 3 }));
    const verdicts = kinds(
      detector,
      ['r1', 'r2', 'r3', 'r4', 'r5'].map((hash) => attempt('poll', { id: 1 }, hash)),
    );
    expect(verdicts).toEqual(times(5, 'ok'));
  });

  it('counts the same call with the same result even when other calls come between, inside the window', () => {
    const detector = new LoopDetector(config({ warnAfter: 3, stopAfter: 10 }));
    const verdicts = kinds(detector, [
      attempt('read', { path: 'a' }),
      attempt('other', { n: 1 }),
      attempt('read', { path: 'a' }),
      attempt('other', { n: 2 }),
      attempt('read', { path: 'a' }),
    ]);
    expect(verdicts).toEqual(['ok', 'ok', 'ok', 'ok', 'warn']);
  });

  it('compares arguments canonically: key order does not make a call different', () => {
    const detector = new LoopDetector(config({ warnAfter: 2, stopAfter: 5 }));
    expect(
      kinds(detector, [attempt('f', { a: 1, b: { c: 2, d: 3 } }), attempt('f', { b: { d: 3, c: 2 }, a: 1 })]),
    ).toEqual(['ok', 'warn']);
  });

  it('tells different arguments and different tools apart', () => {
    const detector = new LoopDetector(config({ warnAfter: 2, stopAfter: 5 }));
    expect(kinds(detector, [attempt('f', { a: 1 }), attempt('f', { a: 2 }), attempt('g', { a: 1 })])).toEqual(
      times(3, 'ok'),
    );
  });

  it('tells apart arguments that differ only under a "__proto__" key the model sent', () => {
    // Same results on purpose (a mix-up of the arguments would make them repeats): convergence is off.
    const detector = new LoopDetector(
      config({ warnAfter: 2, stopAfter: 3, convergence: { enabled: false } }),
    );
    const args = ['{"__proto__":{"path":"a"}}', '{"__proto__":{"path":"b"}}', '{"__proto__":{"path":"c"}}'];
    expect(
      kinds(
        detector,
        args.map((json) => attempt('read', JSON.parse(json))),
      ),
    ).toEqual(times(3, 'ok'));
  });

  it('uses per-tool thresholds where given and the turn’s elsewhere', () => {
    const detector = new LoopDetector(
      config({
        warnAfter: 5,
        stopAfter: 6,
        perTool: { poll: { warnAfter: 2, stopAfter: 3 }, ls: { stopAfter: 2 } },
      }),
    );
    expect(kinds(detector, times(3, attempt('poll', {})))).toEqual(['ok', 'warn', 'stop']);
    expect(kinds(detector, times(2, attempt('ls', {})))).toEqual(['ok', 'stop']);
    expect(kinds(detector, times(6, attempt('read', {})))).toEqual([...times(4, 'ok'), 'warn', 'stop']);
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])(
    'uses the turn’s thresholds for a tool named %s that has no per-tool entry',
    (toolName) => {
      const detector = new LoopDetector(config({ warnAfter: 2, stopAfter: 3 }));
      expect(kinds(detector, times(3, attempt(toolName, {})))).toEqual(['ok', 'warn', 'stop']);
    },
  );

  it('notices a cycle of different calls repeating with the same results', () => {
    // Per-call thresholds are out of reach, so only the cycle rule can fire.
    const detector = new LoopDetector(
      config({
        warnAfter: 3,
        stopAfter: 4,
        perTool: { a: { warnAfter: 100, stopAfter: 100 }, b: { warnAfter: 100, stopAfter: 100 } },
      }),
    );
    const cycle = [attempt('a', {}), attempt('b', {})];
    const verdicts = kinds(detector, [...cycle, ...cycle, ...cycle, ...cycle]);
    expect(verdicts).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'warn', 'warn', 'stop']);
  });

  it('names the cycle’s length and repetitions', () => {
    const detector = new LoopDetector(
      config({
        warnAfter: 2,
        stopAfter: 9,
        perTool: { a: { warnAfter: 99 }, b: { warnAfter: 99 }, c: { warnAfter: 99 } },
      }),
    );
    const cycle = [attempt('a', {}), attempt('b', {}), attempt('c', {})];
    const verdicts = [...cycle, ...cycle].map((a) => detector.observe(a));
    expect(verdicts.at(-1)).toEqual({
      kind: 'warn',
      message: expect.stringContaining('the same 3 calls have repeated 2 times in a row'),
    });
  });

  it('does not see a cycle when the repeating calls return new results', () => {
    const detector = new LoopDetector(config({ warnAfter: 2, stopAfter: 3 }));
    const verdicts = kinds(
      detector,
      [1, 2, 3, 4, 5, 6].map((n) => attempt(n % 2 ? 'a' : 'b', {}, `result-${n}`)),
    );
    expect(verdicts).toEqual(times(6, 'ok'));
  });

  it('says ok to everything when disabled', () => {
    const detector = new LoopDetector(config({ enabled: false, warnAfter: 1, stopAfter: 1 }));
    expect(kinds(detector, times(20, attempt('f', {})))).toEqual(times(20, 'ok'));
  });

  it('gives the same verdicts to two detectors fed the same attempts (replay agrees with the live run)', () => {
    const attempts = Array.from({ length: 40 }, (_, i) =>
      attempt(['a', 'b', 'c'][i % 3]!, { i: i % 4 }, `h${i % 5}`),
    );
    const one = new LoopDetector(config({ warnAfter: 2, stopAfter: 4 }));
    const two = new LoopDetector(config({ warnAfter: 2, stopAfter: 4 }));
    expect(attempts.map((a) => one.observe(a))).toEqual(attempts.map((a) => two.observe(a)));
  });
});

/** A productive call: a new question with a new answer. */
const distinct = (n: number) => attempt('grep', { pattern: `p${n}` }, `match ${n} in src/file-${n % 7}.ts`);
const listing = (n: number) =>
  `${Array.from({ length: 40 }, (_, i) => `src/module-${i}.ts  ${1000 + i * 37} bytes`).join('\n')}\nlisted at 10:${String(n).padStart(2, '0')}`;

describe('LoopDetector within its window', () => {
  it('lets a 550-call turn re-read the same file every 61 calls, with distinct calls between, without a warning', () => {
    const detector = new LoopDetector(config());
    const verdicts = Array.from({ length: 550 }, (_, k) =>
      detector.observe(k % 61 === 0 ? attempt('read', { path: 'notes.md' }, 'the notes') : distinct(k)),
    );
    expect(verdicts.filter((_, k) => k % 61 === 0)).toHaveLength(10);
    expect(verdicts.every((v) => v.kind === 'ok')).toBe(true);
  });

  it('still warns then stops a tight loop (the same call, the same result, back to back) late in a long turn', () => {
    const detector = new LoopDetector(config());
    for (let k = 0; k < 500; k++) expect(detector.observe(distinct(k)).kind).toBe('ok');
    const verdicts = kinds(detector, times(10, attempt('status', { job: 'j1' }, 'still running')));
    expect(verdicts).toEqual([...times(2, 'ok'), ...times(7, 'warn'), 'stop']);
  });

  it('still notices a two-call cycle with the same results inside the window, with the default thresholds', () => {
    const detector = new LoopDetector(config());
    for (let k = 0; k < 200; k++) detector.observe(distinct(k));
    const cycle = [attempt('read', { path: 'a' }, 'A'), attempt('read', { path: 'b' }, 'B')];
    const verdicts = kinds(detector, Array.from({ length: 10 }, () => cycle).flat());
    expect(verdicts.indexOf('warn')).toBeGreaterThan(0);
    expect(verdicts.indexOf('stop')).toBeGreaterThan(verdicts.indexOf('warn'));
    expect(verdicts.at(-1)).toBe('stop');
  });

  it('stops a cycle too long for any of its calls to repeat ten times once it fills the window, after warning', () => {
    const detector = new LoopDetector(config());
    const cycle = Array.from({ length: 8 }, (_, i) => attempt('step', { i }, `result ${i}`));
    const verdicts = kinds(detector, Array.from({ length: 7 }, () => cycle).flat());
    expect(verdicts.indexOf('stop')).toBe(49);
    expect(verdicts.slice(0, 49)).toContain('warn');
    expect(verdicts.slice(0, 49)).not.toContain('stop');
  });

  it('caps a stopAfter larger than the window: a window of one repeating call stops the turn', () => {
    const detector = new LoopDetector(config({ window: 20, stopAfter: 100 }));
    const verdicts = kinds(detector, times(20, attempt('status', {})));
    expect(verdicts).toEqual([...times(2, 'ok'), ...times(17, 'warn'), 'stop']);
  });

  it('never calls the same call returning a different result each time a loop, over a thousand calls', () => {
    const detector = new LoopDetector(config());
    const verdicts = kinds(
      detector,
      Array.from({ length: 1_000 }, (_, n) => attempt('tick', {}, `tick ${n}`)),
    );
    expect(verdicts).toEqual(times(1_000, 'ok'));
  });
});

describe('LoopDetector convergence', () => {
  it('warns when a tool’s results come back at least 95 % alike three times in a row', () => {
    const detector = new LoopDetector(config());
    const verdicts = [1, 2, 3].map((n) => detector.observe(attempt('ls', { dir: `d${n}` }, listing(n))));
    expect(verdicts.map((v) => v.kind)).toEqual(['ok', 'ok', 'warn']);
    expect(verdicts[2]).toEqual({
      kind: 'warn',
      message: expect.stringMatching(/^\[loop warning\] ls returned nearly the same result 3 times in a row/),
    });
  });

  it('only warns, never stops, however long the results stay alike', () => {
    const detector = new LoopDetector(config());
    const verdicts = kinds(
      detector,
      Array.from({ length: 60 }, (_, n) => attempt('ls', { n }, listing(n))),
    );
    expect(verdicts).toEqual([...times(2, 'ok'), ...times(58, 'warn')]);
  });

  it('starts over when a result is unlike the one before', () => {
    const detector = new LoopDetector(config());
    const verdicts = kinds(detector, [
      attempt('ls', { n: 1 }, listing(1)),
      attempt('ls', { n: 2 }, listing(2)),
      attempt('ls', { n: 3 }, 'something else entirely, and long enough to be judged on its own merits'),
      attempt('ls', { n: 4 }, listing(4)),
      attempt('ls', { n: 5 }, listing(5)),
    ]);
    expect(verdicts).toEqual(times(5, 'ok'));
  });

  it('compares a tool’s results with its own, whatever other tools return between them', () => {
    const detector = new LoopDetector(config());
    const verdicts = kinds(detector, [
      attempt('ls', { n: 1 }, listing(1)),
      distinct(1),
      attempt('ls', { n: 2 }, listing(2)),
      distinct(2),
      attempt('ls', { n: 3 }, listing(3)),
    ]);
    expect(verdicts).toEqual([...times(4, 'ok'), 'warn']);
  });

  it('does not judge short acknowledgements: three writes answering "ok" are not converging', () => {
    const detector = new LoopDetector(config());
    expect(
      kinds(
        detector,
        [1, 2, 3, 4].map((n) => attempt('write', { path: `f${n}` }, 'ok')),
      ),
    ).toEqual(times(4, 'ok'));
  });

  it('can be switched off or made stricter', () => {
    const off = new LoopDetector(config({ convergence: { enabled: false } }));
    expect(
      kinds(
        off,
        [1, 2, 3].map((n) => attempt('ls', { n }, listing(n))),
      ),
    ).toEqual(times(3, 'ok'));
    const later = new LoopDetector(config({ convergence: { warnAfter: 4 } }));
    expect(
      kinds(
        later,
        [1, 2, 3, 4].map((n) => attempt('ls', { n }, listing(n))),
      ),
    ).toEqual([...times(3, 'ok'), 'warn']);
  });
});

describe('LoopDetector memory', () => {
  /** Fixed-width calls and results, so two memories of the same shape have the same size. */
  const fixedWidth = (n: number, tools: number) =>
    attempt(`t${n % tools}`, { n: String(n).padStart(6, '0') }, `result ${String(n).padStart(6, '0')}`);

  it('holds no more after 10,000 attempts than after a window’s worth', () => {
    const detector = new LoopDetector(config());
    for (let n = 0; n < 50; n++) detector.observe(fixedWidth(n, 5));
    const afterWindow = detector.save();
    for (let n = 50; n < 10_000; n++) detector.observe(fixedWidth(n, 5));
    const afterMany = detector.save();
    expect(afterMany.recent).toHaveLength(50);
    expect(afterMany.latest).toHaveLength(5);
    expect(JSON.stringify(afterMany).length).toBe(JSON.stringify(afterWindow).length);
  });

  it('forgets a tool whose latest attempt has left the window, so many distinct tools do not grow it', () => {
    const detector = new LoopDetector(config());
    for (let n = 0; n < 10_000; n++) detector.observe(fixedWidth(n, 10_000));
    const memory = detector.save();
    expect(memory.recent).toHaveLength(50);
    expect(memory.latest).toHaveLength(50);
  });

  it('goes on from its saved memory exactly as it would have', () => {
    const attempts = Array.from({ length: 120 }, (_, n) =>
      n % 3 === 0
        ? attempt('ls', { n }, listing(n % 60))
        : attempt(['a', 'b'][n % 2]!, { i: n % 4 }, `h${n % 5}`),
    );
    const straight = new LoopDetector(config({ warnAfter: 2, stopAfter: 6 }));
    const expected = attempts.map((a) => straight.observe(a));
    let detector = new LoopDetector(config({ warnAfter: 2, stopAfter: 6 }));
    const verdicts = attempts.map((a, n) => {
      if (n % 7 === 0) {
        const carried = JSON.parse(JSON.stringify(detector.save()));
        detector = LoopDetector.restore(config({ warnAfter: 2, stopAfter: 6 }), carried);
      }
      return detector.observe(a);
    });
    expect(verdicts).toEqual(expected);
  });

  it('restores a whole-turn memory (snapshot version 1): its latest attempts become the window, its counts are dropped', () => {
    const probe = new LoopDetector(config());
    probe.observe(attempt('status', { job: 'j1' }));
    const [status] = probe.save().recent as [string];
    // The old detector had seen the call nine times (one more stops it), twice among its latest attempts.
    const old = { counts: [[status, 9]] as [string, number][], history: [status, 'other', status] };
    const detector = LoopDetector.restore(config(), old);
    expect(detector.save()).toEqual({ recent: old.history, latest: [] });
    expect(detector.observe(attempt('status', { job: 'j1' })).kind).toBe('warn');
  });
});

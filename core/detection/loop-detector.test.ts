import { type DetectionConfig, detectionConfigSchema } from '../schema/turn-config';
import { type DetectedAttempt, LoopDetector, type LoopVerdict } from './loop-detector';

const config = (overrides: Partial<DetectionConfig> = {}): DetectionConfig =>
  detectionConfigSchema.parse(overrides);

const attempt = (toolName: string, args: unknown, resultHash = 'same'): DetectedAttempt => ({
  toolName,
  args,
  resultHash,
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

  it('counts the same call with the same result even when other calls come between', () => {
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
    const detector = new LoopDetector(config({ warnAfter: 2, stopAfter: 3 }));
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

import type { DetectionConfig } from '../schema/turn-config';
import { canonicalJson } from '../tools/canonical-json';
import { stableHash } from '../tools/stable-hash';
import { resultSimilarity, sketchedLength, sketchResult } from './result-sketch';

// Read once: in Temporal's workflow sandbox every read of a global such as `Math` is slow, and
// `observe` runs for every attempt of a long turn.
const { floor, max, min } = Math;

export interface DetectedAttempt {
  toolName: string;
  args: unknown;
  resultHash: string;
  /** The result itself: convergence compares it with the tool's previous result. */
  content: unknown;
}

export type LoopVerdict =
  | { kind: 'ok' }
  | { kind: 'warn'; message: string }
  | { kind: 'stop'; message: string };

/** A tool's latest result, for convergence. */
export interface LatestResult {
  toolName: string;
  /** Its attempt's fingerprint: while the window holds it, the result is recent enough to compare. */
  fingerprint: string;
  sketch: string;
  /** Nearly-same results of this tool in a row, this one included. */
  streak: number;
}

/** The detector's memory, carried across continue-as-new: never more than the window's worth. */
export interface LoopDetectorMemory {
  /** The fingerprints of the latest attempts, oldest first: at most `window` of them. */
  recent: string[];
  /** The latest result of each tool whose latest attempt is still in the window. */
  latest: LatestResult[];
}

/**
 * The memory as the detector before windows saved it (turn snapshots of schema version 1): every
 * distinct attempt's count over the whole turn, and the latest attempts (at most four times
 * `stopAfter`, 40 by default) in order.
 */
export interface WholeTurnMemory {
  counts?: [string, number][];
  history: string[];
}

/**
 * Notices a turn going round in circles, judging only its latest attempts (the `window`, 50 by
 * default): the same call (tool + canonical arguments) giving the same result again and again, or a
 * short cycle of calls (A, B, A, B, …) repeating with the same results. It warns the model first,
 * then stops the turn. A repeated call that returns something new is progress and starts its own
 * count; a call repeated with the same result far apart (a file re-read every sixty productive
 * calls) is not a loop either — a long turn's legitimate re-reads must not stop it.
 *
 * Convergence is judged alongside: a tool whose results keep coming back nearly the same (≥ 95 %
 * alike, three in a row) earns a warning but never a stop (see `convergenceConfigSchema`).
 *
 * It is fed every attempt of every call, in batch order when the call's output is recorded, so its
 * verdicts are the same in sequential and parallel mode and on replay. Its memory is bounded by the
 * window, however long the turn.
 */
export class LoopDetector {
  private recent: string[] = [];
  /** How often each fingerprint is in `recent`: its counts without a scan of the window per attempt. */
  private readonly counts = new Map<string, number>();
  /** By tool name (model-supplied: a Map, never a plain object). */
  private readonly latest = new Map<string, LatestResult>();
  /** Cycles longer than this could not repeat `warnAfter` times inside the window with a warning to spare. */
  private readonly longestCycle: number;

  constructor(private readonly config: DetectionConfig) {
    this.longestCycle = max(2, floor((config.window - 1) / config.warnAfter));
  }

  /** The detector's memory, for carrying a turn across continue-as-new. */
  save(): LoopDetectorMemory {
    return { recent: [...this.recent], latest: [...this.latest.values()].map((r) => ({ ...r })) };
  }

  /**
   * A detector that goes on from a saved memory. An older, whole-turn memory converts: its latest
   * attempts become the window (they are the same kind of list, just shorter) and its counts are
   * dropped — they are whole-turn counts, exactly what made long turns stop, and the window's own
   * counts are rebuilt from those latest attempts. It has nothing for convergence, which starts
   * afresh: at worst a convergence warning comes two results later.
   */
  static restore(config: DetectionConfig, memory: LoopDetectorMemory | WholeTurnMemory): LoopDetector {
    const detector = new LoopDetector(config);
    const recent = 'history' in memory ? memory.history : memory.recent;
    for (const fingerprint of recent.slice(-config.window)) detector.remember(fingerprint);
    if ('history' in memory) return detector;
    for (const result of memory.latest) {
      if (detector.counts.has(result.fingerprint)) detector.latest.set(result.toolName, { ...result });
    }
    return detector;
  }

  observe(attempt: DetectedAttempt): LoopVerdict {
    if (!this.config.enabled) return { kind: 'ok' };
    // Hashed: the memory is carried across continue-as-new and must stay small.
    const fingerprint = stableHash(
      `${attempt.toolName}\u0000${canonicalJson(attempt.args)}\u0000${attempt.resultHash}`,
    );
    this.remember(fingerprint);
    // Every rule runs before one verdict is chosen: the memory must not depend on which one spoke.
    const streak = this.converge(attempt, fingerprint);
    const count = this.countOf(fingerprint);
    const cycle = this.trailingCycle();

    const own = this.thresholdsFor(attempt.toolName);
    // Levels first, words only for a verdict that speaks: this runs for every attempt.
    const repeatLevel = level(count, own, count >= this.config.window);
    const cycleLevel = cycle
      ? level(cycle.repetitions, this.config, cycle.length >= this.config.window)
      : 'ok';
    const repeat =
      repeatLevel === 'ok'
        ? ok
        : verdict(
            repeatLevel,
            `${attempt.toolName} was called ${count} times with the same arguments and returned the same result each time`,
          );
    const cyclic =
      !cycle || cycleLevel === 'ok'
        ? ok
        : verdict(
            cycleLevel,
            `the same ${cycle.period} calls have repeated ${cycle.repetitions} times in a row with the same results`,
          );
    if (repeat.kind === 'stop') return repeat;
    if (cyclic.kind === 'stop') return cyclic;
    if (repeat.kind === 'warn') return repeat;
    if (cyclic.kind === 'warn') return cyclic;
    if (streak >= this.config.convergence.warnAfter) {
      return {
        kind: 'warn',
        message: `[loop warning] ${attempt.toolName} returned nearly the same result ${streak} times in a row. Use what you already have or try a different approach.`,
      };
    }
    return ok;
  }

  /** Adds the attempt to the window; a tool whose latest attempt leaves the window is forgotten. */
  private remember(fingerprint: string): void {
    this.recent.push(fingerprint);
    this.counts.set(fingerprint, (this.counts.get(fingerprint) ?? 0) + 1);
    if (this.recent.length <= this.config.window) return;
    const gone = this.recent.shift() as string;
    const left = (this.counts.get(gone) ?? 1) - 1;
    if (left > 0) {
      this.counts.set(gone, left);
      return;
    }
    this.counts.delete(gone);
    for (const [toolName, result] of this.latest)
      if (result.fingerprint === gone) this.latest.delete(toolName);
  }

  /**
   * The tool's run of nearly-same results, this one included (0 when convergence is off). The same
   * call with the same result again is a repeat, judged by the repeat thresholds: it leaves the run
   * as it was, so per-tool thresholds keep their meaning. A short result is never "alike" (see
   * `minChars`).
   */
  private converge(attempt: DetectedAttempt, fingerprint: string): number {
    const rule = this.config.convergence;
    if (!rule.enabled) return 0;
    const previous = this.latest.get(attempt.toolName);
    if (previous?.fingerprint === fingerprint) return 0;
    const sketch = sketchResult(attempt.content, rule.minChars);
    const streak =
      previous &&
      judged(sketch, rule.minChars) &&
      judged(previous.sketch, rule.minChars) &&
      resultSimilarity(previous.sketch, sketch) >= rule.similarity
        ? previous.streak + 1
        : 1;
    this.latest.delete(attempt.toolName);
    this.latest.set(attempt.toolName, { toolName: attempt.toolName, fingerprint, sketch, streak });
    return streak;
  }

  private countOf(fingerprint: string): number {
    return this.counts.get(fingerprint) ?? 0;
  }

  private thresholdsFor(toolName: string): { warnAfter: number; stopAfter: number } {
    const own = Object.hasOwn(this.config.perTool, toolName) ? this.config.perTool[toolName] : undefined;
    // Most tools have none of their own: the turn's, without an object made per attempt.
    if (!own) return this.config;
    return {
      warnAfter: own.warnAfter ?? this.config.warnAfter,
      stopAfter: own.stopAfter ?? this.config.stopAfter,
    };
  }

  /**
   * The cycle that has repeated most at the end of the window: for each period p ≥ 2 whose last p
   * attempts are not all one call, the longest tail of the window in which every attempt equals the
   * one p before it.
   */
  private trailingCycle(): { period: number; repetitions: number; length: number } | undefined {
    const h = this.recent;
    const n = h.length;
    // The tail that is one call over and over: a period inside it is that call, not a cycle.
    let same = 1;
    while (same < n && h[n - 1 - same] === h[n - 1]) same += 1;
    let best: { period: number; repetitions: number; length: number } | undefined;
    const longest = min(this.longestCycle, floor(n / 2));
    for (let period = 2; period <= longest; period++) {
      if (same >= period) continue;
      let start = n - period;
      while (start > 0 && h[start - 1] === h[start - 1 + period]) start -= 1;
      const length = n - start;
      const repetitions = floor(length / period);
      if (repetitions >= 2 && (!best || repetitions > best.repetitions))
        best = { period, repetitions, length };
    }
    return best;
  }
}

const ok: LoopVerdict = { kind: 'ok' };

/** Whether a result was long enough to be compared (see `minChars`). */
function judged(sketch: string, minChars: number): boolean {
  return sketchedLength(sketch) >= minChars;
}

/** Where a count stands against its thresholds; a window of nothing but one call or cycle stops. */
function level(
  count: number,
  thresholds: { warnAfter: number; stopAfter: number },
  fillsWindow: boolean,
): 'ok' | 'warn' | 'stop' {
  if (count >= thresholds.stopAfter || fillsWindow) return 'stop';
  return count >= thresholds.warnAfter ? 'warn' : 'ok';
}

function verdict(kind: 'warn' | 'stop', what: string): LoopVerdict {
  if (kind === 'stop') return { kind, message: `loop detected: ${what}` };
  return {
    kind,
    message: `[loop warning] ${what}. Use what you already have or try a different approach; repeating it again will stop the turn.`,
  };
}

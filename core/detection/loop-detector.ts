import type { DetectionConfig } from '../schema/turn-config';
import { canonicalJson } from '../tools/canonical-json';
import { stableHash } from '../tools/stable-hash';

export interface DetectedAttempt {
  toolName: string;
  args: unknown;
  resultHash: string;
}

export type LoopVerdict =
  | { kind: 'ok' }
  | { kind: 'warn'; message: string }
  | { kind: 'stop'; message: string };

export interface LoopDetectorMemory {
  counts: [string, number][];
  history: string[];
}

const longestCycle = 4;

/**
 * Notices a turn going round in circles: the same call (tool + canonical arguments) giving the same
 * result again and again, or a short cycle of calls (A, B, A, B, …) repeating with the same
 * results. A repeated call that returns something new is progress and starts its own count.
 *
 * It is fed every attempt of every call, in batch order when the call's output is recorded, so its
 * verdicts are the same in sequential and parallel mode and on replay.
 */
export class LoopDetector {
  private readonly counts = new Map<string, number>();
  private history: string[] = [];

  constructor(private readonly config: DetectionConfig) {}

  /** The detector's memory, for carrying a turn across continue-as-new. */
  save(): LoopDetectorMemory {
    return { counts: [...this.counts.entries()], history: [...this.history] };
  }

  static restore(config: DetectionConfig, memory: LoopDetectorMemory): LoopDetector {
    const detector = new LoopDetector(config);
    for (const [key, count] of memory.counts) detector.counts.set(key, count);
    detector.history = [...memory.history];
    return detector;
  }

  observe(attempt: DetectedAttempt): LoopVerdict {
    if (!this.config.enabled) return { kind: 'ok' };
    // Hashed: the memory is carried across continue-as-new and must stay small.
    const fingerprint = stableHash(
      `${attempt.toolName}\u0000${canonicalJson(attempt.args)}\u0000${attempt.resultHash}`,
    );
    const count = (this.counts.get(fingerprint) ?? 0) + 1;
    this.counts.set(fingerprint, count);
    this.history.push(fingerprint);
    const limit = longestCycle * this.config.stopAfter;
    if (this.history.length > limit) this.history = this.history.slice(-limit);

    const own = this.thresholdsFor(attempt.toolName);
    const repeat = verdict(
      count,
      own,
      () =>
        `${attempt.toolName} was called ${count} times with the same arguments and returned the same result each time`,
    );
    if (repeat.kind !== 'ok') return repeat;
    const cycle = this.trailingCycle();
    if (cycle) {
      return verdict(
        cycle.repetitions,
        this.config,
        () =>
          `the same ${cycle.period} calls have repeated ${cycle.repetitions} times in a row with the same results`,
      );
    }
    return { kind: 'ok' };
  }

  private thresholdsFor(toolName: string): { warnAfter: number; stopAfter: number } {
    const own = Object.hasOwn(this.config.perTool, toolName) ? this.config.perTool[toolName] : undefined;
    return {
      warnAfter: own?.warnAfter ?? this.config.warnAfter,
      stopAfter: own?.stopAfter ?? this.config.stopAfter,
    };
  }

  /** The longest run of a repeating period-p block (p ≥ 2, not all one call) at the end of history. */
  private trailingCycle(): { period: number; repetitions: number } | undefined {
    const h = this.history;
    let best: { period: number; repetitions: number } | undefined;
    for (let period = 2; period <= longestCycle; period++) {
      if (h.length < period * 2) break;
      const block = h.slice(-period);
      if (block.every((f) => f === block[0])) continue;
      let repetitions = 1;
      while (h.length >= period * (repetitions + 1)) {
        const start = h.length - period * (repetitions + 1);
        if (!block.every((f, i) => h[start + i] === f)) break;
        repetitions += 1;
      }
      if (repetitions >= 2 && (!best || repetitions > best.repetitions)) best = { period, repetitions };
    }
    return best;
  }
}

function verdict(
  count: number,
  t: { warnAfter: number; stopAfter: number },
  describe: () => string,
): LoopVerdict {
  if (count >= t.stopAfter) return { kind: 'stop', message: `loop detected: ${describe()}` };
  if (count >= t.warnAfter) {
    return {
      kind: 'warn',
      message: `[loop warning] ${describe()}. Use what you already have or try a different approach; repeating it again will stop the turn.`,
    };
  }
  return { kind: 'ok' };
}

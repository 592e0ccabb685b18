export type HealthStatus = 'healthy' | 'degraded' | 'unhealthy';
export type CircuitState = 'closed' | 'open' | 'half-open';
export type AttemptOutcome = 'success' | 'failure' | 'timeout';

export interface ToolHealthOptions {
  /** Consecutive failures that open the circuit. */
  failureThreshold?: number;
  /** How long an open circuit refuses calls before letting one probe through. */
  coolDownMs?: number;
  /** Weight of the newest attempt in the recent success rate. */
  ewmaAlpha?: number;
  degradedBelow?: number;
  unhealthyBelow?: number;
  /** The clock (core code reads no clock of its own): pass `Date.now` in a process. */
  now: () => number;
}

export interface ToolHealthSnapshot {
  toolName: string;
  attempts: number;
  successes: number;
  failures: number;
  timeouts: number;
  consecutiveFailures: number;
  latencyMs: { mean: number; max: number };
  /**
   * Recent attempts' success rate: their mean, the newest weighted most (exponentially, by
   * `ewmaAlpha`); 1 when none yet.
   */
  recentSuccessRate: number;
  status: HealthStatus;
  circuit: CircuitState;
  /** When an open circuit lets its next probe through. */
  openUntil?: number;
}

interface Counters {
  attempts: number;
  successes: number;
  failures: number;
  timeouts: number;
  consecutiveFailures: number;
  latencyTotal: number;
  latencyMax: number;
  /** The exponentially weighted sum of outcomes (1 a success), started from 0 … */
  ewma: number;
  /** … and how much of the weight it has not yet given out: (1 − alpha)^attempts. */
  ewmaUnweighted: number;
  openUntil?: number;
  probing: boolean;
}

export type Admission =
  | { allowed: true; probe: boolean }
  | { allowed: false; retryAfterMs: number; reason: string };

/**
 * Per-tool counters and a circuit breaker, shared by every turn in a process (on Temporal, by every
 * activity on a worker). A circuit opens after N consecutive failures; while open, calls get an
 * explicit error without running; after the cool-down exactly one probe runs, and its outcome
 * closes or re-opens the circuit.
 */
export class ToolHealthRegistry {
  private readonly tools = new Map<string, Counters>();
  private readonly failureThreshold: number;
  private readonly coolDownMs: number;
  private readonly alpha: number;
  private readonly degradedBelow: number;
  private readonly unhealthyBelow: number;
  private readonly now: () => number;

  constructor(options: ToolHealthOptions) {
    this.failureThreshold = options.failureThreshold ?? 5;
    this.coolDownMs = options.coolDownMs ?? 30_000;
    this.alpha = options.ewmaAlpha ?? 0.2;
    this.degradedBelow = options.degradedBelow ?? 0.9;
    this.unhealthyBelow = options.unhealthyBelow ?? 0.5;
    this.now = options.now;
  }

  /** Asks whether an attempt of this tool may run now. */
  admit(toolName: string): Admission {
    const c = this.counters(toolName);
    if (c.openUntil === undefined) return { allowed: true, probe: false };
    const now = this.now();
    if (now < c.openUntil || c.probing) {
      const retryAfterMs = Math.max(0, c.openUntil - now);
      return {
        allowed: false,
        retryAfterMs,
        reason: `circuit open for ${toolName} after ${c.consecutiveFailures} consecutive failures; next probe in ${retryAfterMs} ms`,
      };
    }
    c.probing = true;
    return { allowed: true, probe: true };
  }

  /** An admitted attempt that did not run after all (cancelled first): frees the probe slot. */
  release(toolName: string): void {
    this.counters(toolName).probing = false;
  }

  record(toolName: string, outcome: AttemptOutcome, latencyMs: number): void {
    const c = this.counters(toolName);
    c.attempts += 1;
    c.latencyTotal += latencyMs;
    c.latencyMax = Math.max(c.latencyMax, latencyMs);
    const ok = outcome === 'success';
    c.ewma = this.alpha * (ok ? 1 : 0) + (1 - this.alpha) * c.ewma;
    c.ewmaUnweighted *= 1 - this.alpha;
    c.probing = false;
    if (ok) {
      c.successes += 1;
      c.consecutiveFailures = 0;
      c.openUntil = undefined;
      return;
    }
    if (outcome === 'timeout') c.timeouts += 1;
    else c.failures += 1;
    c.consecutiveFailures += 1;
    if (c.openUntil !== undefined || c.consecutiveFailures >= this.failureThreshold) {
      c.openUntil = this.now() + this.coolDownMs;
    }
  }

  snapshot(): ToolHealthSnapshot[] {
    return [...this.tools.keys()].sort().map((name) => this.snapshotOf(name));
  }

  snapshotOf(toolName: string): ToolHealthSnapshot {
    const c = this.counters(toolName);
    const circuit: CircuitState =
      c.openUntil === undefined ? 'closed' : this.now() >= c.openUntil || c.probing ? 'half-open' : 'open';
    // The weighted mean of the attempts so far: the sum over the weight given out (so a first
    // failure and then a success is ~0.56 at alpha 0.2, where seeding with the first said 0.2).
    const given = 1 - c.ewmaUnweighted;
    const rate = c.attempts === 0 || given <= 0 ? 1 : Math.min(1, c.ewma / given);
    const status: HealthStatus =
      circuit !== 'closed' || rate < this.unhealthyBelow
        ? 'unhealthy'
        : rate < this.degradedBelow
          ? 'degraded'
          : 'healthy';
    return {
      toolName,
      attempts: c.attempts,
      successes: c.successes,
      failures: c.failures,
      timeouts: c.timeouts,
      consecutiveFailures: c.consecutiveFailures,
      latencyMs: { mean: c.attempts === 0 ? 0 : c.latencyTotal / c.attempts, max: c.latencyMax },
      recentSuccessRate: rate,
      status,
      circuit,
      ...(c.openUntil !== undefined ? { openUntil: c.openUntil } : {}),
    };
  }

  private counters(toolName: string): Counters {
    let c = this.tools.get(toolName);
    if (!c) {
      c = {
        attempts: 0,
        successes: 0,
        failures: 0,
        timeouts: 0,
        consecutiveFailures: 0,
        latencyTotal: 0,
        latencyMax: 0,
        ewma: 0,
        ewmaUnweighted: 1,
        probing: false,
      };
      this.tools.set(toolName, c);
    }
    return c;
  }
}

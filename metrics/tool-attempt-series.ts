import type { HistogramSeries } from './bucket-histogram';

/**
 * One tool's attempts, counted on the hot path without prom-client and read at scrape time: by
 * outcome (in the order the outcomes were first seen) and in its duration histogram series.
 */
export class ToolAttemptSeries {
  /** `ok` is nearly every attempt: a field, not a map entry. Its place in the order is kept in `outcomes`. */
  private ok = 0;
  private readonly outcomes = new Map<string, number>();

  constructor(private readonly seconds: HistogramSeries) {}

  record({ outcome, durationMs }: { outcome: string; durationMs: number }): void {
    if (outcome === 'ok') {
      if (this.ok === 0) this.outcomes.set(outcome, 0);
      this.ok += 1;
    } else this.outcomes.set(outcome, (this.outcomes.get(outcome) ?? 0) + 1);
    this.seconds.observe(durationMs / 1000);
  }

  /** Attempts by outcome, as counted so far. */
  *counts(): Generator<[outcome: string, count: number]> {
    for (const [outcome, count] of this.outcomes) yield [outcome, outcome === 'ok' ? this.ok : count];
  }
}

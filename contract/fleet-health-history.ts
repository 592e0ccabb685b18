import { defineQuery } from '@temporalio/workflow';
import { z } from 'zod';
import type { FleetWorkerRecord } from './fleet-health-report';

/**
 * Tool success rates over time, kept by the fleet health workflow itself: a point per
 * `everyMs` of reports, for the last `retentionMs`. It lives in Temporal, so it outlives any
 * dashboard, and every dashboard of a task queue draws the same past.
 */
export const healthPointSchema = z.object({
  /** Workflow time of the report that made the point (ms since the epoch). */
  at: z.number().int(),
  /** Per tool: its fleet success rate, null while it has no attempts (a rate of nothing is not 100 %). */
  tools: z.record(
    z.string(),
    z.object({
      recentSuccessRate: z.number().nullable(),
      attempts: z.number(),
      /** Per worker identity, its own rate (null with no attempts). */
      workers: z.record(z.string(), z.number().nullable()),
    }),
  ),
});
export type HealthPoint = z.infer<typeof healthPointSchema>;

export const healthHistorySchema = z.object({
  retentionMs: z.number().int().positive(),
  /** Oldest first. */
  points: z.array(healthPointSchema),
});
export type HealthHistoryBody = z.infer<typeof healthHistorySchema>;

export const healthHistoryOptionsSchema = z.object({
  /** A point at most this often (workers report every 10 s by default: faster finds nothing new). */
  everyMs: z.number().int().positive().default(10_000),
  retentionMs: z
    .number()
    .int()
    .positive()
    .default(30 * 60_000),
  /** 30 minutes at 10 s; past it the older half is thinned (see `HealthHistory`). */
  maxPoints: z.number().int().min(2).default(180),
  /**
   * The points' JSON, at most: the history rides in the query's answer and in the continue-as-new
   * input (2 MiB a payload), so a fleet of many tools and workers thins its past instead.
   */
  maxBytes: z
    .number()
    .int()
    .positive()
    .default(256 * 1024),
});
export type HealthHistoryOptions = z.infer<typeof healthHistoryOptionsSchema>;

export const fleetHealthHistoryQuery = defineQuery<HealthHistoryBody>('fleetHealthHistory');

/** The workers' recent success rates, weighted by their attempts (1 with none: nothing failed). */
export function weightedSuccessRate(
  workers: readonly { attempts: number; recentSuccessRate: number }[],
): number {
  let attempts = 0;
  let weighted = 0;
  for (const w of workers) {
    attempts += w.attempts;
    weighted += w.recentSuccessRate * w.attempts;
  }
  return attempts === 0 ? 1 : weighted / attempts;
}

/** The roster reduced to a point: per tool, the fleet's rate and each worker's. */
export function healthPointOf({
  workers,
  at,
}: {
  workers: readonly FleetWorkerRecord[];
  at: number;
}): HealthPoint {
  const byTool = new Map<string, { identity: string; attempts: number; recentSuccessRate: number }[]>();
  for (const worker of workers)
    for (const tool of worker.tools) {
      const list = byTool.get(tool.toolName) ?? [];
      list.push({
        identity: worker.identity,
        attempts: tool.attempts,
        recentSuccessRate: tool.recentSuccessRate,
      });
      byTool.set(tool.toolName, list);
    }
  const tools: HealthPoint['tools'] = {};
  for (const [toolName, list] of byTool) {
    const rates: Record<string, number | null> = {};
    for (const w of list) rates[w.identity] = w.attempts === 0 ? null : w.recentSuccessRate;
    const attempts = list.reduce((n, w) => n + w.attempts, 0);
    tools[toolName] = {
      recentSuccessRate: attempts === 0 ? null : weightedSuccessRate(list),
      attempts,
      workers: rates,
    };
  }
  return { at, tools };
}

/**
 * The last `retentionMs` of points, oldest first, never more than `maxPoints` nor `maxBytes` of
 * JSON: past either the older half is thinned to every second point, so the recent past keeps full
 * resolution and the distant past a coarser one. Pure, for workflow code.
 */
export class HealthHistory {
  private points: { point: HealthPoint; bytes: number }[] = [];
  private bytes = 0;

  constructor(
    private readonly options: HealthHistoryOptions,
    carried: readonly HealthPoint[] = [],
  ) {
    for (const point of carried) this.add({ point });
  }

  /** Whether a point taken at `at` is due (none yet, or `everyMs` since the last). */
  due({ at }: { at: number }): boolean {
    const last = this.points.at(-1);
    return last === undefined || at - last.point.at >= this.options.everyMs;
  }

  add({ point }: { point: HealthPoint }): void {
    const last = this.points.at(-1);
    // A point older than the newest (a clock step back) would break the order the chart relies on.
    if (last && point.at < last.point.at) return;
    // With the comma that separates it from the next in a JSON array.
    const bytes = JSON.stringify(point).length + 1;
    this.points.push({ point, bytes });
    this.bytes += bytes;
    const since = point.at - this.options.retentionMs;
    let expired = 0;
    while (expired < this.points.length && (this.points[expired]?.point.at ?? 0) < since) expired += 1;
    if (expired > 0) this.drop(this.points.splice(0, expired));
    while (
      this.points.length > 1 &&
      (this.points.length > this.options.maxPoints || this.bytes > this.options.maxBytes)
    )
      this.thin();
  }

  list(): HealthPoint[] {
    return this.points.map((p) => p.point);
  }

  body(): HealthHistoryBody {
    return { retentionMs: this.options.retentionMs, points: this.list() };
  }

  /** Removes at least one point: every second one of the older half, or the oldest when that is too few. */
  private thin(): void {
    const half = Math.floor(this.points.length / 2);
    if (half < 2) {
      this.drop(this.points.splice(0, 1));
      return;
    }
    const older = this.points.slice(0, half);
    this.drop(older.filter((_p, i) => i % 2 === 1));
    this.points = [...older.filter((_p, i) => i % 2 === 0), ...this.points.slice(half)];
  }

  private drop(gone: readonly { bytes: number }[]): void {
    for (const p of gone) this.bytes -= p.bytes;
  }
}

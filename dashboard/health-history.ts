import { z } from 'zod';
import type { FleetHealthView } from '../client/fleet-health-view';

/** One reading of the fleet as the chart needs it: per tool (and per worker) the recent success rate. */
export const healthPointSchema = z.object({
  /** When the dashboard read the fleet (ms since the epoch, the dashboard's clock). */
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

/** A reading of the fleet reduced to a point: a few numbers per tool, not the whole view. */
export function healthPoint({ view, at }: { view: FleetHealthView; at: number }): HealthPoint {
  const tools: HealthPoint['tools'] = {};
  for (const tool of view.tools) {
    const workers: Record<string, number | null> = {};
    for (const w of tool.workers) workers[w.identity] = w.attempts === 0 ? null : w.recentSuccessRate;
    const a = tool.aggregate;
    tools[tool.toolName] = {
      recentSuccessRate: a.attempts === 0 ? null : a.recentSuccessRate,
      attempts: a.attempts,
      workers,
    };
  }
  return { at, tools };
}

/**
 * The last `retentionMs` of health points, oldest first, never more than `maxPoints`: past that the
 * older half is thinned to every second point, so the recent past keeps full resolution and the
 * distant past a coarser one, and memory stays bounded whatever the poll rate.
 */
export class HealthHistory {
  private points: HealthPoint[] = [];

  constructor(private readonly options: { retentionMs: number; maxPoints: number }) {
    if (options.maxPoints < 2) throw new Error(`maxPoints must be at least 2, got ${options.maxPoints}`);
  }

  add({ point }: { point: HealthPoint }): void {
    const last = this.points.at(-1);
    // A point older than the newest (a clock step back) would break the order the chart relies on.
    if (last && point.at < last.at) return;
    this.points.push(point);
    const since = point.at - this.options.retentionMs;
    const firstKept = this.points.findIndex((p) => p.at >= since);
    if (firstKept > 0) this.points.splice(0, firstKept);
    if (this.points.length > this.options.maxPoints) this.thin();
  }

  /** The points, oldest first (a copy). */
  list(): HealthPoint[] {
    return [...this.points];
  }

  private thin(): void {
    const half = Math.floor(this.points.length / 2);
    const older = this.points.slice(0, half).filter((_p, i) => i % 2 === 0);
    this.points = [...older, ...this.points.slice(half)];
  }
}

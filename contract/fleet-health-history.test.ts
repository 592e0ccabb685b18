import type { FleetWorkerRecord } from './fleet-health';
import {
  HealthHistory,
  type HealthPoint,
  healthHistoryOptionsSchema,
  healthPointOf,
} from './fleet-health-history';

const point = (at: number, rate = 1): HealthPoint => ({
  at,
  tools: { search: { recentSuccessRate: rate, attempts: 1, workers: { w1: rate } } },
});
const options = (given: Partial<ReturnType<typeof healthHistoryOptionsSchema.parse>>) =>
  healthHistoryOptionsSchema.parse(given);
const times = (history: HealthHistory) => history.list().map((p) => p.at);

const tool = (toolName: string, attempts: number, recentSuccessRate: number) => ({
  toolName,
  attempts,
  successes: Math.round(attempts * recentSuccessRate),
  failures: attempts - Math.round(attempts * recentSuccessRate),
  timeouts: 0,
  consecutiveFailures: 0,
  latencyMs: { mean: 1, max: 1 },
  recentSuccessRate,
  status: 'healthy' as const,
  circuit: 'closed' as const,
});
const worker = (identity: string, tools: ReturnType<typeof tool>[]): FleetWorkerRecord => ({
  identity,
  reportedAt: 0,
  intervalMs: 10_000,
  ttlMs: 30_000,
  tools,
  receivedAt: 0,
  reports: 1,
});

describe('HealthHistory: success rates over time, kept by the fleet health workflow', () => {
  test('keeps points oldest first, and ignores one older than the newest so the order holds', () => {
    const history = new HealthHistory(options({}));
    for (const at of [5_000, 4_000, 6_000]) history.add({ point: point(at) });
    expect(times(history)).toEqual([5_000, 6_000]);
  });

  test('a point is due once `everyMs` passed since the last', () => {
    const history = new HealthHistory(options({ everyMs: 10_000 }));
    expect(history.due({ at: 0 })).toBe(true);
    history.add({ point: point(0) });
    expect(history.due({ at: 9_999 })).toBe(false);
    expect(history.due({ at: 10_000 })).toBe(true);
  });

  test('drops points older than the retention', () => {
    const history = new HealthHistory(options({ retentionMs: 10_000, maxPoints: 100 }));
    for (let at = 0; at <= 30_000; at += 2_000) history.add({ point: point(at) });
    expect(times(history)).toEqual([20_000, 22_000, 24_000, 26_000, 28_000, 30_000]);
  });

  test('never holds more than maxPoints, thinning the older half and keeping the newest points', () => {
    const maxPoints = 20;
    const history = new HealthHistory(options({ retentionMs: 24 * 3_600_000, maxPoints }));
    for (let i = 0; i < 1_000; i++) {
      history.add({ point: point(i * 1_000) });
      expect(history.list().length).toBeLessThanOrEqual(maxPoints);
    }
    const kept = times(history);
    expect(kept.slice(-5)).toEqual([995_000, 996_000, 997_000, 998_000, 999_000]);
    const [first = 0, second = 0] = kept;
    expect(second - first).toBeGreaterThan(1_000);
    expect(first).toBeLessThan(500_000);
  });

  test('never holds more than maxBytes of JSON (it rides in a query answer and a continue-as-new input)', () => {
    const maxBytes = 4_000;
    const history = new HealthHistory(options({ retentionMs: 24 * 3_600_000, maxPoints: 10_000, maxBytes }));
    for (let i = 0; i < 500; i++) {
      history.add({ point: point(i * 1_000, i % 2) });
      expect(JSON.stringify(history.list()).length).toBeLessThanOrEqual(maxBytes + 1);
    }
    expect(times(history).at(-1)).toBe(499_000);
    expect(history.list().length).toBeGreaterThan(10);
  });

  test('a carried history (continue-as-new) is taken back as it was', () => {
    const carried = [point(1_000), point(2_000), point(3_000)];
    expect(new HealthHistory(options({}), carried).list()).toEqual(carried);
  });
});

describe('healthPointOf: the roster as one point', () => {
  test("per tool the fleet's rate weighted by attempts, and each worker's own; no attempts is no rate, not 100 %", () => {
    const p = healthPointOf({
      at: 7,
      workers: [
        worker('w1', [tool('search', 30, 1), tool('idle', 0, 1)]),
        worker('w2', [tool('search', 10, 0.2)]),
      ],
    });
    expect(p).toEqual({
      at: 7,
      tools: {
        search: { recentSuccessRate: (30 * 1 + 10 * 0.2) / 40, attempts: 40, workers: { w1: 1, w2: 0.2 } },
        idle: { recentSuccessRate: null, attempts: 0, workers: { w1: null } },
      },
    });
  });
});

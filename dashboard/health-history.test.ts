import { HealthHistory, type HealthPoint, healthPoint } from './health-history';

const point = (at: number, rate = 1): HealthPoint => ({
  at,
  tools: { search: { recentSuccessRate: rate, attempts: 1, workers: { w1: rate } } },
});
const times = (history: HealthHistory) => history.list().map((p) => p.at);

describe('HealthHistory', () => {
  test('keeps points oldest first', () => {
    const history = new HealthHistory({ retentionMs: 60_000, maxPoints: 10 });
    for (const at of [1_000, 2_000, 3_000]) history.add({ point: point(at) });
    expect(times(history)).toEqual([1_000, 2_000, 3_000]);
  });

  test('ignores a point older than the newest, so the order holds', () => {
    const history = new HealthHistory({ retentionMs: 60_000, maxPoints: 10 });
    history.add({ point: point(5_000) });
    history.add({ point: point(4_000) });
    history.add({ point: point(6_000) });
    expect(times(history)).toEqual([5_000, 6_000]);
  });

  test('drops points older than the retention', () => {
    const history = new HealthHistory({ retentionMs: 10_000, maxPoints: 100 });
    for (let at = 0; at <= 30_000; at += 2_000) history.add({ point: point(at) });
    expect(times(history)).toEqual([20_000, 22_000, 24_000, 26_000, 28_000, 30_000]);
  });

  test('never holds more than maxPoints, thinning the older half and keeping the newest points', () => {
    const maxPoints = 20;
    const history = new HealthHistory({ retentionMs: 24 * 3_600_000, maxPoints });
    for (let i = 0; i < 1_000; i++) {
      history.add({ point: point(i * 1_000) });
      expect(history.list().length).toBeLessThanOrEqual(maxPoints);
    }
    const kept = times(history);
    // The newest points are all there, one per second; the oldest survivors are further apart.
    expect(kept.slice(-5)).toEqual([995_000, 996_000, 997_000, 998_000, 999_000]);
    const [first = 0, second = 0] = kept;
    expect(second - first).toBeGreaterThan(1_000);
    expect(kept).toEqual([...kept].sort((a, b) => a - b));
    // The first point ever added has long been thinned out, but the span still reaches far back.
    expect(first).toBeLessThan(500_000);
  });

  test('a tool with no attempts has no rate rather than 100 %', () => {
    const p = healthPoint({
      at: 1,
      view: {
        taskQueue: 'q',
        workflowId: 'w',
        asOf: null,
        workers: [],
        tools: [
          {
            toolName: 'idle',
            aggregate: {
              workers: 1,
              attempts: 0,
              successes: 0,
              failures: 0,
              timeouts: 0,
              latencyMs: { mean: 0, max: 0 },
              recentSuccessRate: 1,
              status: 'healthy',
              circuits: { closed: 1, open: 0, halfOpen: 0 },
            },
            workers: [],
          },
        ],
      },
    });
    expect(p.tools.idle).toEqual({ recentSuccessRate: null, attempts: 0, workers: {} });
  });
});

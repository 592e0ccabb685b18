import { twoWorkerState } from '../test/support/fleet-health-state';
import { fleetHealthView, fleetHealthViewSchema } from './fleet-health-view';

describe('fleetHealthView', () => {
  const view = fleetHealthView({ state: twoWorkerState, workflowId: 'durable-turns-health:agents' });

  it('lists each worker by identity with its last report (server time), its TTL and when it drops out', () => {
    expect(view.workers).toEqual([
      {
        identity: 'worker-a',
        lastReportAt: '2026-12-01T10:00:00.250Z',
        reportedAt: '2026-12-01T10:00:00.000Z',
        intervalMs: 10_000,
        ttlMs: 30_000,
        dropsOutAt: '2026-12-01T10:00:30.250Z',
        reports: 7,
        toolCount: 2,
      },
      expect.objectContaining({ identity: 'worker-b', toolCount: 1 }),
    ]);
  });

  it("gives per tool each worker's own counters, and only the workers that ran it", () => {
    expect(
      view.tools.map((t) => [t.toolName, t.workers.map((w) => [w.identity, w.failures, w.circuit])]),
    ).toEqual([
      [
        'lookup',
        [
          ['worker-a', 6, 'open'],
          ['worker-b', 0, 'closed'],
        ],
      ],
      ['steady', [['worker-a', 0, 'closed']]],
    ]);
  });

  it('aggregates a tool across workers: sums, attempt-weighted means, and degraded when the workers disagree', () => {
    expect(view.tools[0]?.aggregate).toEqual({
      workers: 2,
      attempts: 8,
      successes: 2,
      failures: 6,
      timeouts: 0,
      latencyMs: { mean: (6 * 2 + 2 * 10) / 8, max: 30 },
      recentSuccessRate: (6 * 0 + 2 * 1) / 8,
      status: 'degraded',
      circuits: { closed: 1, open: 1, halfOpen: 0 },
    });
    expect(view.tools[1]?.aggregate.status).toBe('healthy');
  });

  it('is the JSON shape its schema names', () => {
    expect(fleetHealthViewSchema.parse(JSON.parse(JSON.stringify(view)))).toEqual(view);
  });
});

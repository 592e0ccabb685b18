import { fleetWorkerRecordSchema, type WorkerHealthReport } from '../../contract/fleet-health';
import { FleetRoster } from './fleet-health-roster';

const snapshot = (toolName: string, attempts: number) => ({
  toolName,
  attempts,
  successes: attempts,
  failures: 0,
  timeouts: 0,
  consecutiveFailures: 0,
  latencyMs: { mean: 5, max: 9 },
  recentSuccessRate: 1,
  status: 'healthy' as const,
  circuit: 'closed' as const,
});

const report = (identity: string, attempts: number, ttlMs = 3_000): WorkerHealthReport => ({
  identity,
  reportedAt: 1_000,
  intervalMs: 1_000,
  ttlMs,
  tools: [snapshot('lookup', attempts)],
});

describe('FleetRoster', () => {
  it("replaces a worker's report with its newer one, counting its reports and stamping workflow time", () => {
    const roster = new FleetRoster();
    roster.report({ report: report('a', 1), now: 10_000 });
    roster.report({ report: report('a', 4), now: 11_000 });
    expect(roster.records()).toEqual([{ ...report('a', 4), receivedAt: 11_000, reports: 2 }]);
  });

  it('drops a worker exactly when its TTL has passed since its last report, and not before', () => {
    const roster = new FleetRoster();
    roster.report({ report: report('a', 1, 3_000), now: 10_000 });
    roster.report({ report: report('b', 1, 5_000), now: 10_000 });
    expect(roster.nextExpiry()).toBe(13_000);
    expect(roster.prune({ now: 12_999 })).toEqual([]);
    expect(roster.prune({ now: 13_000 })).toEqual(['a']);
    expect(roster.records().map((r) => r.identity)).toEqual(['b']);
    expect(roster.nextExpiry()).toBe(15_000);
  });

  it("a report pushes the worker's expiry later", () => {
    const roster = new FleetRoster();
    roster.report({ report: report('a', 1), now: 10_000 });
    roster.report({ report: report('a', 2), now: 12_000 });
    expect(roster.prune({ now: 13_000 })).toEqual([]);
    expect(roster.nextExpiry()).toBe(15_000);
  });

  it('a worker that leaves is gone at once, and an empty roster has no expiry', () => {
    const roster = new FleetRoster();
    roster.report({ report: report('a', 1), now: 10_000 });
    roster.leave({ identity: 'a' });
    expect(roster.size).toBe(0);
    expect(roster.nextExpiry()).toBeUndefined();
  });

  it('a roster carried across continue-as-new (as JSON, through the schema) is the same roster', () => {
    const first = new FleetRoster();
    first.report({ report: report('b', 2), now: 10_000 });
    first.report({ report: report('a', 1), now: 10_500 });
    first.report({ report: report('a', 3), now: 11_000 });
    const carried = JSON.parse(JSON.stringify(first.records())).map((r: unknown) =>
      fleetWorkerRecordSchema.parse(r),
    );
    const next = new FleetRoster({ carried });
    expect(next.records()).toEqual(first.records());
    expect(next.nextExpiry()).toBe(first.nextExpiry());
    next.report({ report: report('a', 5), now: 12_000 });
    expect(next.records().find((r) => r.identity === 'a')?.reports).toBe(3);
  });
});

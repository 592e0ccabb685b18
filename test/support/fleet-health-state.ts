import type {
  FleetHealthState,
  FleetWorkerRecord,
  ToolHealthSnapshotWire,
} from '../../contract/fleet-health';

export const toolSnapshot = (
  toolName: string,
  over: Partial<ToolHealthSnapshotWire>,
): ToolHealthSnapshotWire => ({
  toolName,
  attempts: 0,
  successes: 0,
  failures: 0,
  timeouts: 0,
  consecutiveFailures: 0,
  latencyMs: { mean: 0, max: 0 },
  recentSuccessRate: 1,
  status: 'healthy',
  circuit: 'closed',
  ...over,
});

const worker = (identity: string, tools: ToolHealthSnapshotWire[]): FleetWorkerRecord => ({
  identity,
  reportedAt: Date.parse('2026-12-01T10:00:00.000Z'),
  receivedAt: Date.parse('2026-12-01T10:00:00.250Z'),
  intervalMs: 10_000,
  ttlMs: 30_000,
  reports: 7,
  tools,
});

/** Two workers: `lookup` fails on worker-a (its circuit open) and succeeds on worker-b. */
export const twoWorkerState: FleetHealthState = {
  taskQueue: 'agents',
  asOf: Date.parse('2026-12-01T10:00:01.000Z'),
  run: 2,
  workers: [
    worker('worker-a', [
      toolSnapshot('lookup', {
        attempts: 6,
        failures: 6,
        consecutiveFailures: 6,
        latencyMs: { mean: 2, max: 4 },
        recentSuccessRate: 0,
        status: 'unhealthy',
        circuit: 'open',
      }),
      toolSnapshot('steady', { attempts: 2, successes: 2, latencyMs: { mean: 10, max: 12 } }),
    ]),
    worker('worker-b', [
      toolSnapshot('lookup', { attempts: 2, successes: 2, latencyMs: { mean: 10, max: 30 } }),
    ]),
  ],
};

import type { FleetWorkerRecord, WorkerHealthReport } from '../../contract/fleet-health';

/**
 * The fleet health workflow's state: each worker's last report, keyed by identity. Pure (the
 * workflow passes its own clock), so drop-out is decided in workflow code from workflow time —
 * deterministic on replay and free of the skew between worker, server and client clocks.
 */
export class FleetRoster {
  private readonly workers = new Map<string, FleetWorkerRecord>();

  constructor({ carried = [] }: { carried?: readonly FleetWorkerRecord[] } = {}) {
    for (const record of carried) this.workers.set(record.identity, record);
  }

  get size(): number {
    return this.workers.size;
  }

  /** A report replaces the worker's previous one whole: its registry's counters are cumulative. */
  report({ report, now }: { report: WorkerHealthReport; now: number }): void {
    const previous = this.workers.get(report.identity);
    this.workers.set(report.identity, { ...report, receivedAt: now, reports: (previous?.reports ?? 0) + 1 });
  }

  leave({ identity }: { identity: string }): void {
    this.workers.delete(identity);
  }

  /** Drops the workers whose last report is older than their TTL; returns their identities. */
  prune({ now }: { now: number }): string[] {
    const gone: string[] = [];
    for (const [identity, record] of this.workers) {
      if (expiryOf(record) <= now) {
        this.workers.delete(identity);
        gone.push(identity);
      }
    }
    return gone;
  }

  /** When the next worker drops out if it stays silent (undefined with no workers). */
  nextExpiry(): number | undefined {
    let next: number | undefined;
    for (const record of this.workers.values()) {
      const expiry = expiryOf(record);
      if (next === undefined || expiry < next) next = expiry;
    }
    return next;
  }

  /** The roster by identity, for the query and the continue-as-new carry. */
  records(): FleetWorkerRecord[] {
    return [...this.workers.values()].sort((a, b) => a.identity.localeCompare(b.identity));
  }
}

function expiryOf(record: FleetWorkerRecord): number {
  return record.receivedAt + record.ttlMs;
}

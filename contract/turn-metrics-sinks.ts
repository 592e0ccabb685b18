import type { Sinks } from '@temporalio/workflow';
import type { TurnStatus } from '../core/schema/turn-status';

/**
 * How the turn workflow reports turn-level figures to the worker running it. A sink, not the
 * SDK's workflow metric meter: its calls reach the worker's own prom-client registry (the meter's
 * reach only the Temporal runtime's exporter), and, like the meter's, they are not made again
 * when a history is replayed, so each turn is counted once however often its workflow is
 * evicted and rebuilt. `createTurnWorker` always registers it (a no-op without metrics).
 */
export interface TurnMetricsSinks extends Sinks {
  durableTurnsMetrics: {
    /** The turn's first run began (not a continue-as-new). */
    turnStarted(): void;
    /** The turn ended; `durationMs` since its first run began, by workflow time. */
    turnEnded(event: { status: TurnStatus; durationMs: number }): void;
  };
}

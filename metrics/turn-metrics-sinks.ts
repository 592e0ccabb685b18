import type { InjectedSinks } from '@temporalio/worker';
import type { TurnMetricsSinks } from '../contract/turn-metrics-sinks';
import type { TurnMetrics } from './turn-metrics';

/**
 * The worker's side of the turn workflow's metrics sink: turns started and ended go to `metrics`
 * (nowhere without). Registered on every turn worker, since a workflow calling a sink its worker
 * lacks logs an error each time. Not called on replay.
 */
export function turnMetricsSinks({ metrics }: { metrics?: TurnMetrics }): InjectedSinks<TurnMetricsSinks> {
  return {
    durableTurnsMetrics: {
      turnStarted: { fn: () => metrics?.recordTurnStarted(), callDuringReplay: false },
      turnEnded: {
        fn: (_info, { status, durationMs }) => metrics?.recordTurnEnded({ status, durationMs }),
        callDuringReplay: false,
      },
    },
  };
}

import { proxySinks, workflowInfo } from '@temporalio/workflow';
import type { TurnMetricsSinks } from '../../contract/turn-metrics-sinks';
import type { TurnStatus } from '../../core';

const { durableTurnsMetrics } = proxySinks<TurnMetricsSinks>();

/** Counted once per turn: a run that continues a turn (carried state) is not a new one. */
export function reportTurnStarted({ continued }: { continued: boolean }): void {
  if (!continued) durableTurnsMetrics.turnStarted();
}

export function reportTurnEnded({ status }: { status: TurnStatus }): void {
  durableTurnsMetrics.turnEnded({ status, durationMs: Date.now() - workflowInfo().startTime.getTime() });
}

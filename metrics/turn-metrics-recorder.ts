import type { TurnStatus } from '../core/schema/turn-status';
import type { Usage } from '../core/schema/usage';

/** How a model request ended, as `durable_turns_model_requests_total{outcome}` says. */
export type ModelRequestOutcome = 'ok' | 'error' | 'cancelled';

/** What the turn-level gauges read at each scrape: each source's figures are added together. */
export interface TurnGaugeSource {
  /** Turns started and not yet ended. */
  openTurns(): number | Promise<number>;
  /** Open turns with at least one call waiting for a person's decision. */
  turnsWaitingForApproval(): number | Promise<number>;
}

/**
 * What the observer and the metered model record into: `TurnMetrics` is the one implementation;
 * they name only this, so the metrics class can build them without an import loop.
 */
export interface TurnMetricsRecorder {
  recordToolAttempt(attempt: { tool: string; outcome: string; durationMs: number }): void;
  recordModelRequest(request: {
    model: string;
    outcome: ModelRequestOutcome;
    durationMs: number;
    usage?: Usage;
  }): void;
  recordTurnStarted(): void;
  recordTurnEnded(turn: { status: TurnStatus; durationMs?: number }): void;
}

import type { AttemptResult } from '../schema/attempt-result';
import type { JournalEntry } from '../schema/journal-entry';
import type { UserMessage } from '../schema/messages';
import type { PreparedCall } from '../schema/prepared-call';
import type { Usage } from '../schema/usage';
import type { ApprovalEvent } from './approval-events';
import type { ModelFailure, ModelResponse, TurnEngine } from './turn-engine';

/**
 * Everything a host can report to the engine, as one closed union: a host queues what happened
 * (an activity's result, an Update, a cancel) and feeds it in order; the engine decides what it
 * means. Hosts translate their own failures into these kinds and nothing more.
 */
export type HostEvent =
  | { kind: 'call-streamed'; responseIndex: number; call: PreparedCall }
  | { kind: 'model-responded'; response: ModelResponse }
  | { kind: 'model-failed'; responseIndex: number; attempt: number; error: ModelFailure }
  /** The summary a `compact` operation asked for. */
  | { kind: 'compacted'; attempt: number; summary: string; usage: Usage }
  | { kind: 'compaction-failed'; attempt: number; error: ModelFailure }
  /** The attempt ran and reported (whatever it reported: ok, error, interrupted). */
  | {
      kind: 'attempt-finished';
      toolCallId: string;
      attempt: number;
      result: AttemptResult;
      durationMs: number;
    }
  /** Nobody can say how the attempt ended (its worker died or stopped heartbeating). */
  | { kind: 'attempt-lost'; toolCallId: string; attempt: number; detail?: string }
  /** The attempt's host could not read it (a key it lacks): the tool never ran. */
  | { kind: 'attempt-not-started'; toolCallId: string; attempt: number; detail: string }
  /** The cancel stopped the attempt before it reported. */
  | { kind: 'attempt-cancelled'; toolCallId: string; attempt: number }
  /** The host could not run the attempt (e.g. its activity failed before the tool). */
  | { kind: 'attempt-failed'; toolCallId: string; attempt: number; message: string }
  | ApprovalEvent
  | { kind: 'cancel'; reason?: string }
  /** A message a user sent into the running turn (a conversation's steer). */
  | { kind: 'steer'; messageId: string; message: UserMessage };

/** Feeds one host event to the engine; returns the entries to persist. */
export function feedHostEvent(engine: TurnEngine, event: HostEvent, now: number): JournalEntry[] {
  // Arguments written out rather than spread from the event: this runs for every attempt of every
  // call, and object spread is slow in V8.
  switch (event.kind) {
    case 'call-streamed':
      return engine.onCallStreamed(event);
    case 'model-responded':
      return engine.onModelResponded(event.response, now);
    case 'model-failed':
      return engine.onModelFailed({
        responseIndex: event.responseIndex,
        attempt: event.attempt,
        error: event.error,
        now,
      });
    case 'compacted':
      return engine.onCompacted({ attempt: event.attempt, summary: event.summary, usage: event.usage });
    case 'compaction-failed':
      return engine.onCompactionFailed({ attempt: event.attempt, error: event.error, now });
    case 'attempt-finished':
      return engine.onToolAttemptFinished({
        toolCallId: event.toolCallId,
        attempt: event.attempt,
        result: event.result,
        durationMs: event.durationMs,
        now,
      });
    case 'attempt-lost':
      return engine.onToolAttemptLost(event);
    case 'attempt-not-started':
      return engine.onToolAttemptNotStarted({ ...event, now });
    case 'attempt-cancelled':
      return engine.onToolAttemptCancelled({ toolCallId: event.toolCallId, attempt: event.attempt, now });
    case 'attempt-failed':
      return engine.onToolAttemptFailed({
        toolCallId: event.toolCallId,
        attempt: event.attempt,
        message: event.message,
        now,
      });
    case 'approval':
    case 'grant':
    case 'revoke':
      return engine.onApprovalEvent(event, now);
    case 'cancel':
      return engine.onCancel(event.reason ? { reason: event.reason } : {});
    case 'steer':
      return engine.onSteer({ messageId: event.messageId, message: event.message });
    default:
      throw new Error(`unknown host event ${JSON.stringify(event satisfies never)}`);
  }
}

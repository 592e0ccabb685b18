/**
 * The turn engine: a pure state machine that says what a host should do next.
 *
 * ```
 *            ┌──────────────── budget / cancel ────────────────┐
 *            ▼                                                 │
 *   start ─► call-model ─► model.responded ─┬─ no calls ─► finished(completed)
 *            ▲                              └─ calls ─► run-tools ⇄ wait
 *            │                                              │
 *            └──────── every output recorded (batch order) ◄┘ ─ halted ─► finished(halt)
 * ```
 *
 * Why it is durable: every transition returns the journal entries it produced, and the host
 * persists them before it acts (the intent to call the model before the request; an attempt as
 * started before the tool runs). State is only ever the fold of those entries (`applyEntry`), so
 * any host can rebuild it from the journal and carry on from the durable head. The engine reads no
 * clock and makes no ids: hosts pass `now`.
 */
import { continuationBlocked, modelRequestBlocked } from '../budget/budget-check';
import type { AttemptResult } from '../schema/attempt-result';
import type { JournalEntry } from '../schema/journal-entry';
import type { PreparedCall } from '../schema/prepared-call';
import type { Usage } from '../schema/usage';
import { applyEntry } from './apply-entry';
import { type ApprovalEvent, checkApprovalEvent, onApprovalEvent } from './approval-events';
import { expireApprovals } from './approvals';
import {
  onToolAttemptCancelled,
  onToolAttemptFailed,
  onToolAttemptFinished,
  onToolAttemptLost,
  onToolAttemptNotStarted,
} from './attempt-events';
import { awaitingBackground } from './background-calls';
import {
  compactionDueByBudget,
  compactionOp,
  onCompacted,
  onCompactionFailed,
  requestCompaction,
} from './compaction-events';
import {
  hostLostMidStream,
  type ModelFailure,
  type ModelResponse,
  type Step,
  type ToolStart,
} from './engine-types';
import { backgroundWaitDeadline, launch, launchOrWait } from './launch-calls';
import {
  continuationReceipt,
  modelOp,
  onCallStreamed,
  onModelFailed,
  onModelResponded,
  partialResponse,
  streamStarts,
} from './model-events';
import { commit, lostEntry, openCalls, settle, transition } from './record-entries';
import { startEntries, type TurnStart } from './start-entries';
import { outcomeOf, type TurnOutcome } from './turn-outcome';
import { snapshotOf, stateFromSnapshot, type TurnSnapshot } from './turn-snapshot';
import { batchOpen, type Steer, type TurnState } from './turn-state';

export type {
  ApprovalRequest,
  CompactionCall,
  ModelCall,
  ModelFailure,
  ModelResponse,
  Step,
  ToolStart,
  TurnOperation,
} from './engine-types';

/**
 * The engine's entry points. What each kind of event does lives with its kind: model events
 * (model-events.ts), tool attempts (attempt-events.ts), approvals (approvals.ts), what starts next
 * (launch-calls.ts), all recording through record-entries.ts; this class holds the state and
 * decides the next step.
 */
export class TurnEngine {
  private constructor(private readonly state: TurnState) {}

  /** Begins a turn (see `startEntries`): its entries are the journal's first. */
  static start(args: TurnStart): { engine: TurnEngine; entries: JournalEntry[] } {
    const entries = startEntries(args);
    return { engine: TurnEngine.replay(entries), entries };
  }

  /** Rebuilds a turn from its journal. */
  static replay(entries: readonly JournalEntry[]): TurnEngine {
    let state: TurnState | undefined;
    for (const entry of entries) state = applyEntry(state, entry);
    if (!state) throw new Error('cannot replay an empty journal: a turn begins with turn.started');
    return new TurnEngine(state);
  }

  /** Continues a turn from a snapshot (a new run after continue-as-new). */
  static restore(snapshot: unknown): TurnEngine {
    return new TurnEngine(stateFromSnapshot(snapshot));
  }

  snapshot(): TurnSnapshot {
    return snapshotOf(this.state);
  }

  get turnId(): string {
    return this.state.turnId;
  }

  /** The current state, read-only: for queries and dashboards. */
  get view(): Readonly<TurnState> {
    return this.state;
  }

  get finished(): boolean {
    return this.state.finished !== undefined;
  }

  outcome(): TurnOutcome {
    return outcomeOf(this.state);
  }

  // `haltedCompactionWaits` (below) is off only for a Temporal run begun before it (its history has the request).
  next(now: number, { haltedCompactionWaits = true }: { haltedCompactionWaits?: boolean } = {}): Step {
    const entries: JournalEntry[] = [];
    settle(this.state, entries);
    if (this.state.finished) return { entries, op: { kind: 'finished', outcome: this.outcome() } };

    if (this.state.batch?.streamOpen) {
      throw new Error(
        `turn ${this.state.turnId}: response ${this.state.batch.responseIndex} is still streaming; feed onModelResponded first`,
      );
    }
    if (batchOpen(this.state) || this.state.background.length > 0) {
      expireApprovals(this.state, now, entries);
      settle(this.state, entries);
      if (this.state.finished) return { entries, op: { kind: 'finished', outcome: this.outcome() } };
    }
    if (batchOpen(this.state)) {
      const blocked = continuationBlocked(this.state.config.budget, this.state.spent, now);
      if (blocked && !this.state.halt)
        commit(this.state, { type: 'turn.halted', reason: 'budget_exhausted', detail: blocked }, entries);
      return launchOrWait(this.state, now, entries, 'batch is open');
    }
    const state = this.state;
    // The model is done (or the turn halted) but background calls still run: wait for them. A turn
    // halted while its request waited for a summary sends neither: it too only waits for them.
    const haltedWhileCompacting =
      haltedCompactionWaits && state.halt !== undefined && state.compacting !== undefined;
    if (awaitingBackground(state) || (haltedWhileCompacting && state.background.length > 0)) {
      const blocked = continuationBlocked(state.config.budget, state.spent, now);
      if (blocked && !state.halt)
        commit(this.state, { type: 'turn.halted', reason: 'budget_exhausted', detail: blocked }, entries);
      const waitedOut = backgroundWaitDeadline(this.state, now, entries);
      settle(this.state, entries);
      if (this.state.finished) return { entries, op: { kind: 'finished', outcome: this.outcome() } };
      // A delivery gave the model something new to answer: ask it (below); otherwise wait.
      if (awaitingBackground(this.state) || (haltedWhileCompacting && this.state.background.length > 0))
        return launchOrWait(this.state, now, entries, 'the turn waits for background calls', waitedOut);
    }
    if (!this.state.modelInFlight && !this.state.halt && this.state.background.length > 0) {
      // A background retry that is due starts before the request, not after the response.
      const { starts } = launch(this.state, undefined, now, entries);
      if (starts.length > 0) return { entries, op: { kind: 'run-tools', starts } };
    }

    if (this.state.compacting && !this.state.halt) {
      // The summary first (the request it was asked for waits); a failed one waits for its backoff.
      const retryAt = this.state.compacting.retryAt;
      if (retryAt !== undefined && now < retryAt)
        return { entries, op: { kind: 'wait', untilMs: retryAt, approvals: [] } };
      return { entries, op: compactionOp(this.state) };
    }
    if (this.state.modelInFlight) {
      // A retry waits for its backoff; otherwise the intent was recorded by a host that did not
      // live to record the response (or the previous attempt failed): ask again.
      const retryAt = this.state.modelRetryAt;
      if (retryAt !== undefined && now < retryAt)
        return { entries, op: { kind: 'wait', untilMs: retryAt, approvals: [] } };
      return { entries, op: modelOp(this.state) };
    }
    const blocked = modelRequestBlocked(this.state.config.budget, this.state.spent, now);
    if (blocked) {
      commit(this.state, { type: 'turn.halted', reason: 'budget_exhausted', detail: blocked }, entries);
      settle(this.state, entries);
      return { entries, op: { kind: 'finished', outcome: this.outcome() } };
    }
    if (compactionDueByBudget(this.state)) {
      requestCompaction(this.state, 'budget', entries);
      return { entries, op: compactionOp(this.state) };
    }
    // The intent names the receipt it continues from: a request asked again after a crash is the same one.
    const receipt = continuationReceipt(this.state);
    commit(
      this.state,
      {
        type: 'model.requested',
        responseIndex: this.state.responseIndex,
        ...(receipt ? { continuesFrom: receipt.responseId } : {}),
      },
      entries,
    );
    return { entries, op: modelOp(this.state) };
  }

  /**
   * A tool call whose arguments are complete while the response still streams. It joins the batch
   * at once; `streamStarts` says whether it may start before the response ends.
   */
  onCallStreamed(streamed: { responseIndex: number; call: PreparedCall }): JournalEntry[] {
    return onCallStreamed(this.state, streamed);
  }

  /**
   * Calls that may start while the response is still streaming: in parallel mode, concurrency-safe
   * calls of the current wave (an unsafe call, and everything after it, waits for the end).
   */
  streamStarts(now: number): { entries: JournalEntry[]; starts: ToolStart[] } {
    return streamStarts(this.state, now);
  }

  /**
   * The response is complete (or as complete as it will get: a broken stream gives a partial one).
   * Calls accepted while it streamed stand as they were; the response adds only calls after them.
   */
  onModelResponded(response: ModelResponse, now?: number): JournalEntry[] {
    return onModelResponded(this.state, response, now);
  }

  /**
   * A model request failed. Calls already accepted from its stream stand, as a partial response;
   * otherwise a transient failure is tried again after the turn's backoff, and anything else — or
   * the last attempt — fails the turn. `attempt` is the one the `call-model` operation carried.
   */
  onModelFailed(failure: {
    responseIndex: number;
    attempt: number;
    error: ModelFailure;
    now: number;
  }): JournalEntry[] {
    return onModelFailed(this.state, failure);
  }

  /** The summary a `compact` operation asked for (see `context.compacted`). */
  onCompacted(report: { attempt: number; summary: string; usage: Usage }): JournalEntry[] {
    return onCompacted(this.state, report);
  }

  /**
   * A summary request failed: tried again after the model's backoff when transient; else given up
   * (the request goes as it is), or — for a request the provider refused as too long — the turn fails.
   */
  onCompactionFailed(report: { attempt: number; error: ModelFailure; now: number }): JournalEntry[] {
    return onCompactionFailed(this.state, report);
  }

  onToolAttemptFinished(report: {
    toolCallId: string;
    attempt: number;
    result: AttemptResult;
    durationMs: number;
    now: number;
  }): JournalEntry[] {
    return onToolAttemptFinished(this.state, report);
  }

  /** The host lost an attempt: a retry-safe call runs again (bounded), any other is interrupted. */
  onToolAttemptLost(report: { toolCallId: string; attempt: number; detail?: string }): JournalEntry[] {
    return onToolAttemptLost(this.state, report);
  }

  /** The attempt's host could not read its input: the tool never ran, and runs again after a backoff. */
  onToolAttemptNotStarted(report: {
    toolCallId: string;
    attempt: number;
    detail: string;
    now: number;
  }): JournalEntry[] {
    return onToolAttemptNotStarted(this.state, report);
  }

  /** The attempt was stopped by the turn's cancellation before it could report. */
  onToolAttemptCancelled(report: { toolCallId: string; attempt: number; now: number }): JournalEntry[] {
    return onToolAttemptCancelled(this.state, report);
  }

  /** The attempt could not run for a reason of the host's: an error for the model, not retried. */
  onToolAttemptFailed(report: {
    toolCallId: string;
    attempt: number;
    message: string;
    now: number;
  }): JournalEntry[] {
    return onToolAttemptFailed(this.state, report);
  }

  /** A decision on a waiting call, a grant, or a grant's end (see `ApprovalEvent`). */
  onApprovalEvent(event: ApprovalEvent, now: number): JournalEntry[] {
    return onApprovalEvent(this.state, event, now);
  }

  /** Why the event cannot be taken now, or undefined (see `checkApprovalEvent`). */
  checkApprovalEvent(event: ApprovalEvent, options?: { whileWaiting?: boolean }): string | undefined {
    return checkApprovalEvent(this.state, event, options);
  }

  /**
   * A message a user sent into the running turn: recorded (`user.steered`) at the next model-request
   * boundary, with any others waiting, in order. Once the model has answered without calls, or the
   * turn is ending, it is not taken: the turn's result does not list it, and the conversation gives
   * it to its next turn. A message id already taken is ignored.
   */
  onSteer(steer: Steer): JournalEntry[] {
    const state = this.state;
    if (state.finished || state.halt || state.modelDone) return [];
    if (
      state.steered?.has(steer.messageId) ||
      state.pendingSteers?.some((s) => s.messageId === steer.messageId)
    )
      return [];
    state.pendingSteers = [...(state.pendingSteers ?? []), steer];
    const entries: JournalEntry[] = [];
    settle(state, entries);
    return entries;
  }

  /** Cancels the turn: every call without an output gets an interrupted one; completed ones stay. */
  onCancel({ reason }: { reason?: string } = {}): JournalEntry[] {
    if (this.state.finished || this.state.halt?.reason === 'cancelled') return [];
    if (this.state.batch?.streamOpen) {
      // Accepted calls need their assistant message before their (interrupted) outputs.
      const entries = onModelResponded(this.state, partialResponse(this.state, 'cancelled while streaming'));
      return [
        ...entries,
        ...transition(this.state, {
          type: 'turn.halted',
          reason: 'cancelled',
          detail: reason ?? 'the turn was cancelled',
        }),
      ];
    }
    return transition(this.state, {
      type: 'turn.halted',
      reason: 'cancelled',
      detail: reason ?? 'the turn was cancelled',
    });
  }

  /**
   * Called by a host that rebuilt the turn from a journal written by another (lost) host. Attempts
   * that started and never finished have an unknown outcome: retry-safe calls run again with the
   * same idempotency key; the others get an explicit interrupted output instead of a second run.
   */
  onResume(): JournalEntry[] {
    const entries: JournalEntry[] = [];
    if (this.state.batch?.streamOpen) {
      // The host died mid-stream. Asking again could bring a different set of calls: the accepted
      // ones stand, as a partial response, and the turn carries on from them.
      entries.push(...onModelResponded(this.state, partialResponse(this.state, hostLostMidStream)));
    }
    for (const call of openCalls(this.state)) {
      if (call.phase !== 'running') continue;
      const attempt = call.attempts.find((a) => !a.result)?.attempt ?? call.nextAttempt;
      commit(this.state, lostEntry(this.state, call, attempt), entries);
    }
    settle(this.state, entries);
    return entries;
  }

  /** Calls currently running (for hosts that must abort them on cancel). */
  runningCalls(): string[] {
    return openCalls(this.state)
      .filter((c) => c.phase === 'running')
      .map((c) => c.call.toolCallId);
  }
}

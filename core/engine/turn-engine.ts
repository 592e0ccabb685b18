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
import { continuationBlocked, modelRequestBlocked, toolCallBlocked } from '../budget/budget-check';
import type { AttemptResult } from '../schema/attempt-result';
import type { JournalEntry } from '../schema/journal-entry';
import type { AssistantMessage, Message, TurnInput } from '../schema/messages';
import { normalizeInput } from '../schema/messages';
import type { PreparedCall } from '../schema/prepared-call';
import { copyOutput, type ToolOutput } from '../schema/tool-output';
import { type TurnConfigInput, turnConfigSchema } from '../schema/turn-config';
import type { Usage } from '../schema/usage';
import { modelRequestKey, toolCallKey } from '../tools/idempotency-key';
import { backoffDelay } from '../tools/retry-decision';
import { applyEntry } from './apply-entry';
import {
  awaitingBackground,
  backgroundCall,
  batchOutputOf,
  deliverable,
  planBackground,
} from './background-calls';
import { engineRevision, maxLostAttemptReruns, notStartedDelay } from './engine-revision';
import { type LaunchPlan, needsApproval, planLaunches } from './plan-launches';
import { outcomeOf, type TurnOutcome } from './turn-outcome';
import { snapshotOf, stateFromSnapshot, type TurnSnapshot } from './turn-snapshot';
import { type BatchState, batchOpen, type CallState, type TurnState } from './turn-state';

export interface ToolStart {
  call: PreparedCall;
  attempt: number;
  /** A person approved the call: a hook's `ask` is answered. */
  approved: boolean;
  /** Stable across attempts, recoveries and hosts; what a tool uses to make its effect exactly-once. */
  idempotencyKey: string;
  /** How long this attempt may run: the tool's own timeout, or the turn's default for tools. */
  timeoutMs: number;
}

/** Why a model request failed, as the host saw it; the engine decides whether to try again. */
export interface ModelFailure {
  message: string;
  /** Transient (reset, 429, 5xx, a broken stream): worth another attempt. */
  retryable: boolean;
  /** The provider asked to wait this long (Retry-After). */
  retryAfterMs?: number;
  /**
   * The request's host was lost (its worker died or stopped heartbeating), as opposed to the
   * provider failing: then the words are those of a host lost after a crash, on every executor.
   */
  lost?: boolean;
}

/** What a response cut off by its host's loss says, after a crash in process or a lost worker. */
const hostLostMidStream = 'the host was lost while the response streamed';

/** A call waiting for a person's decision, as operators and approvers see it. */
export interface ApprovalRequest {
  toolCallId: string;
  toolName: string;
  input: unknown;
  reason: string;
}

export interface ModelCall {
  kind: 'call-model';
  responseIndex: number;
  /** 1 for the first request of this response, then one more per retry. */
  attempt: number;
  messages: Message[];
  idempotencyKey: string;
  /** How long the request may take before it counts as failed (and may be retried). */
  timeoutMs: number;
  /**
   * A stateful continuation (`continuation: 'since-receipt'`): the provider's id for the last
   * response that arrived whole, and where the messages after it start in `messages`.
   */
  continuation?: { previousResponseId: string; fromMessage: number };
}

export type TurnOperation =
  | ModelCall
  | { kind: 'run-tools'; starts: ToolStart[] }
  /**
   * Nothing to start: wait for a running call, a retry (of a call or the model) due at `untilMs`,
   * or the approvals listed. `stop` names running calls the host must abort now (background calls
   * the turn no longer waits for); it may name the same call again, so aborting must be idempotent.
   */
  | { kind: 'wait'; untilMs?: number; approvals: ApprovalRequest[]; stop?: string[] }
  | { kind: 'finished'; outcome: TurnOutcome };

/** What a host does next, and the entries it must persist before doing it. */
export interface Step {
  entries: JournalEntry[];
  op: TurnOperation;
}

export interface ModelResponse {
  responseIndex: number;
  /** Its prose; tool-call parts, if any, are written again from the calls (one source of truth). */
  message: AssistantMessage;
  /** The response's calls after the first `streamedCallCount` (those were accepted while it streamed). */
  calls: PreparedCall[];
  usage: Usage;
  finishReason: string;
  /** How many of the response's first calls were handed over while it streamed (default: none). */
  streamedCallCount?: number;
  /** The provider's id for the response (its receipt), when it gave one. */
  responseId?: string;
}

export class TurnEngine {
  private constructor(private readonly state: TurnState) {}

  /** Begins a turn. The entries (turn.started, turn.opened) are the journal's first. */
  static start({
    turnId,
    input,
    config,
    now,
    revision = engineRevision,
  }: {
    turnId: string;
    input: TurnInput;
    config?: TurnConfigInput;
    now: number;
    /** The rules to run under: the current ones unless a host replays a turn begun under older ones. */
    revision?: number;
  }): {
    engine: TurnEngine;
    entries: JournalEntry[];
  } {
    const entries: JournalEntry[] = [
      { type: 'turn.started', turnId, input: normalizeInput(input), revision },
      { type: 'turn.opened', at: now, config: turnConfigSchema.parse(config ?? {}) },
    ];
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

  next(now: number): Step {
    const entries: JournalEntry[] = [];
    this.settle(entries);
    if (this.state.finished) return { entries, op: { kind: 'finished', outcome: this.outcome() } };

    if (this.state.batch?.streamOpen) {
      throw new Error(
        `turn ${this.state.turnId}: response ${this.state.batch.responseIndex} is still streaming; feed onModelResponded first`,
      );
    }
    if (batchOpen(this.state) || this.state.background.length > 0) {
      this.expireApprovals(now, entries);
      this.settle(entries);
      if (this.state.finished) return { entries, op: { kind: 'finished', outcome: this.outcome() } };
    }
    if (batchOpen(this.state)) {
      const blocked = continuationBlocked(this.state.config.budget, this.state.spent, now);
      if (blocked && !this.state.halt)
        this.commit({ type: 'turn.halted', reason: 'budget_exhausted', detail: blocked }, entries);
      return this.launchOrWait(now, entries, 'batch is open');
    }
    const state = this.state;
    // The model is done (or the turn halted) but background calls still run: wait for them.
    if (awaitingBackground(state)) {
      const blocked = continuationBlocked(state.config.budget, state.spent, now);
      if (blocked && !state.halt)
        this.commit({ type: 'turn.halted', reason: 'budget_exhausted', detail: blocked }, entries);
      const waitedOut = this.backgroundWaitDeadline(now, entries);
      this.settle(entries);
      if (this.state.finished) return { entries, op: { kind: 'finished', outcome: this.outcome() } };
      // A delivery gave the model something new to answer: ask it (below); otherwise wait.
      if (awaitingBackground(this.state))
        return this.launchOrWait(now, entries, 'the turn waits for background calls', waitedOut);
    }
    if (!this.state.modelInFlight && !this.state.halt && this.state.background.length > 0) {
      // A background retry that is due starts before the request, not after the response.
      const { starts } = this.launch(undefined, now, entries);
      if (starts.length > 0) return { entries, op: { kind: 'run-tools', starts } };
    }

    if (this.state.modelInFlight) {
      // A retry waits for its backoff; otherwise the intent was recorded by a host that did not
      // live to record the response (or the previous attempt failed): ask again.
      const retryAt = this.state.modelRetryAt;
      if (retryAt !== undefined && now < retryAt)
        return { entries, op: { kind: 'wait', untilMs: retryAt, approvals: [] } };
      return { entries, op: this.modelOp() };
    }
    const blocked = modelRequestBlocked(this.state.config.budget, this.state.spent, now);
    if (blocked) {
      this.commit({ type: 'turn.halted', reason: 'budget_exhausted', detail: blocked }, entries);
      this.settle(entries);
      return { entries, op: { kind: 'finished', outcome: this.outcome() } };
    }
    // The intent names the receipt it continues from: a request asked again after a crash is the same one.
    const receipt = this.continuationReceipt();
    this.commit(
      {
        type: 'model.requested',
        responseIndex: this.state.responseIndex,
        ...(receipt ? { continuesFrom: receipt.responseId } : {}),
      },
      entries,
    );
    return { entries, op: this.modelOp() };
  }

  /**
   * A tool call whose arguments are complete while the response still streams. It joins the batch
   * at once; `streamStarts` says whether it may start before the response ends.
   */
  onCallStreamed({ responseIndex, call }: { responseIndex: number; call: PreparedCall }): JournalEntry[] {
    if (this.state.finished || !this.state.modelInFlight || responseIndex !== this.state.responseIndex)
      return [];
    if (this.state.batch?.streamOpen && this.state.batch.byId.has(call.toolCallId)) return [];
    return this.transition({ type: 'model.call_accepted', responseIndex, call });
  }

  /**
   * Calls that may start while the response is still streaming: in parallel mode, concurrency-safe
   * calls of the current wave (an unsafe call, and everything after it, waits for the end).
   */
  streamStarts(now: number): { entries: JournalEntry[]; starts: ToolStart[] } {
    const entries: JournalEntry[] = [];
    const batch = this.state.batch;
    if (this.state.finished || this.state.halt || !batch?.streamOpen) return { entries, starts: [] };
    const { starts } = this.launch(batch, now, entries);
    return { entries, starts };
  }

  /**
   * The response is complete (or as complete as it will get: a broken stream gives a partial one).
   * Calls accepted while it streamed stand as they were; the response adds only calls after them.
   */
  onModelResponded(response: ModelResponse): JournalEntry[] {
    if (
      this.state.finished ||
      !this.state.modelInFlight ||
      response.responseIndex !== this.state.responseIndex
    )
      return [];
    return this.transition({ type: 'model.responded', ...this.withAcceptedCalls(response) });
  }

  /**
   * A model request failed. Calls already accepted from its stream stand, as a partial response,
   * and the turn carries on from them (asking again could bring a different set). Otherwise a
   * transient failure is tried again after the turn's backoff, and anything else — or the last
   * attempt — fails the turn with a reason that names the answer. `attempt` is the one the
   * `call-model` operation carried: a report for an older attempt changes nothing.
   */
  onModelFailed({
    responseIndex,
    attempt,
    error,
    now,
  }: {
    responseIndex: number;
    attempt: number;
    error: ModelFailure;
    now: number;
  }): JournalEntry[] {
    const state = this.state;
    if (state.finished || !state.modelInFlight || responseIndex !== state.responseIndex) return [];
    if (attempt !== state.modelFailures + 1) return [];
    if (state.batch?.streamOpen && state.batch.calls.length > 0) {
      return this.onModelResponded(
        this.partialResponse(error.lost ? hostLostMidStream : `the response stream broke: ${error.message}`),
      );
    }
    const policy = state.config.modelRetry;
    const retry = error.retryable && attempt < policy.maxAttempts && !state.halt;
    const entries: JournalEntry[] = [];
    this.commit(
      {
        type: 'model.attempt_failed',
        responseIndex,
        attempt,
        error: error.message,
        retryable: error.retryable,
        at: now,
        ...(retry ? { retryAt: now + (error.retryAfterMs ?? backoffDelay(policy, attempt)) } : {}),
      },
      entries,
    );
    if (!retry) {
      const tries = attempt === 1 ? '' : ` after ${attempt} attempts`;
      this.commit(
        {
          type: 'turn.finished',
          status: 'failed',
          reason: `model request ${responseIndex} failed${tries}: ${error.message}`,
        },
        entries,
      );
    }
    this.settle(entries);
    return entries;
  }

  onToolAttemptFinished({
    toolCallId,
    attempt,
    result,
    durationMs,
    now,
  }: {
    toolCallId: string;
    attempt: number;
    result: AttemptResult;
    durationMs: number;
    now: number;
  }): JournalEntry[] {
    const call = this.openCall(toolCallId);
    if (call?.phase !== 'running' || !call.attempts.some((a) => a.attempt === attempt && !a.result))
      return [];
    const entries = this.transition({
      type: 'tool.attempt_finished',
      toolCallId,
      attempt,
      result,
      at: now,
      durationMs,
    });
    const blocked = continuationBlocked(this.state.config.budget, this.state.spent, now);
    if (blocked && !this.state.halt && (batchOpen(this.state) || this.state.background.length > 0)) {
      this.commit({ type: 'turn.halted', reason: 'budget_exhausted', detail: blocked }, entries);
      this.settle(entries);
    }
    return entries;
  }

  /**
   * The host lost an attempt: it started and nobody can say how it ended (its worker died or
   * stopped heartbeating). The engine decides, the same way on every executor: a retry-safe call
   * runs again with the same idempotency key (a bounded number of times), any other gets an
   * explicit interrupted output saying its outcome is unknown.
   */
  onToolAttemptLost({
    toolCallId,
    attempt,
    detail,
  }: {
    toolCallId: string;
    attempt: number;
    detail?: string;
  }): JournalEntry[] {
    const call = this.openCall(toolCallId);
    if (call?.phase !== 'running' || !call.attempts.some((a) => a.attempt === attempt && !a.result))
      return [];
    return this.transition(this.lostEntry(call, attempt, detail));
  }

  /**
   * The attempt's host could not read its input (it lacks the encryption key): the tool never ran,
   * so the call runs again — after a backoff, so hosts without the key do not spin on it — and the
   * attempt uses up nothing. After a halt it is not run again: it gets an interrupted output.
   */
  onToolAttemptNotStarted({
    toolCallId,
    attempt,
    detail,
    now,
  }: {
    toolCallId: string;
    attempt: number;
    detail: string;
    now: number;
  }): JournalEntry[] {
    const call = this.openCall(toolCallId);
    if (call?.phase !== 'running' || !call.attempts.some((a) => a.attempt === attempt && !a.result))
      return [];
    const retryAt = this.state.halt ? undefined : now + notStartedDelay((call.notStartedAttempts ?? 0) + 1);
    return this.transition({
      type: 'tool.attempt_not_started',
      toolCallId,
      attempt,
      detail,
      ...(retryAt !== undefined ? { retryAt } : {}),
    });
  }

  /**
   * The attempt was stopped by the turn's cancellation before it could report (on Temporal: its
   * activity was cancelled before it ran, or ended as cancelled): it did not finish.
   */
  onToolAttemptCancelled({
    toolCallId,
    attempt,
    now,
  }: {
    toolCallId: string;
    attempt: number;
    now: number;
  }): JournalEntry[] {
    return this.onToolAttemptFinished({
      toolCallId,
      attempt,
      result: {
        status: 'interrupted',
        content: 'interrupted: cancelled before it finished',
        errorType: 'cancelled',
      },
      durationMs: 0,
      now,
    });
  }

  /**
   * The attempt could not run for a reason of the host's (its activity failed before or around
   * the tool: an unregistered activity, an input that did not decode): an error for the model,
   * not retried.
   */
  onToolAttemptFailed({
    toolCallId,
    attempt,
    message,
    now,
  }: {
    toolCallId: string;
    attempt: number;
    message: string;
    now: number;
  }): JournalEntry[] {
    const content = `the tool's activity failed: ${message}`;
    return this.onToolAttemptFinished({
      toolCallId,
      attempt,
      result: {
        status: 'error',
        content,
        errorType: 'activity-failed',
        retryable: false,
        resultHash: `activity-failed:${message}`,
      },
      durationMs: 0,
      now,
    });
  }

  onApproval({
    toolCallId,
    approved,
    reason,
  }: {
    toolCallId: string;
    approved: boolean;
    reason?: string;
  }): JournalEntry[] {
    const call = this.openCall(toolCallId);
    if (!call || !needsApproval(call) || this.state.halt) return [];
    return this.transition({
      type: 'tool.approval_decided',
      toolCallId,
      approved,
      ...(reason ? { reason } : {}),
    });
  }

  /** Cancels the turn: every call without an output gets an interrupted one; completed ones stay. */
  onCancel({ reason }: { reason?: string } = {}): JournalEntry[] {
    if (this.state.finished || this.state.halt?.reason === 'cancelled') return [];
    if (this.state.batch?.streamOpen) {
      // Accepted calls need their assistant message before their (interrupted) outputs.
      const entries = this.onModelResponded(this.partialResponse('cancelled while streaming'));
      return [
        ...entries,
        ...this.transition({
          type: 'turn.halted',
          reason: 'cancelled',
          detail: reason ?? 'the turn was cancelled',
        }),
      ];
    }
    return this.transition({
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
      entries.push(...this.onModelResponded(this.partialResponse(hostLostMidStream)));
    }
    for (const call of this.openCalls()) {
      if (call.phase !== 'running') continue;
      const attempt = call.attempts.find((a) => !a.result)?.attempt ?? call.nextAttempt;
      this.commit(this.lostEntry(call, attempt), entries);
    }
    this.settle(entries);
    return entries;
  }

  /** After a halt nothing new starts, so a lost call is not run again even if it could be. */
  private lostEntry(call: CallState, attempt: number, detail?: string): JournalEntry {
    const rerun =
      call.call.policy.retrySafe &&
      !this.state.halt &&
      call.stopRequested === undefined &&
      (call.lostAttempts ?? 0) < maxLostAttemptReruns;
    return {
      type: 'tool.attempt_lost',
      toolCallId: call.call.toolCallId,
      attempt,
      rerun,
      ...(detail ? { detail } : {}),
    };
  }

  /** Calls currently running (for hosts that must abort them on cancel). */
  runningCalls(): string[] {
    return this.openCalls()
      .filter((c) => c.phase === 'running')
      .map((c) => c.call.toolCallId);
  }

  /**
   * Starts what may start now; when nothing does, the wait: for running calls, retries and
   * approvals (of the batch and of background calls), and the deadline `alsoUntil`.
   */
  private launchOrWait(now: number, entries: JournalEntry[], what: string, alsoUntil?: number): Step {
    const { plan, starts } = this.launch(this.state.batch, now, entries);
    this.settle(entries);
    if (this.state.finished) return { entries, op: { kind: 'finished', outcome: this.outcome() } };
    if (starts.length > 0) return { entries, op: { kind: 'run-tools', starts } };
    const halted = this.state.halt !== undefined;
    const approvals = halted ? [] : plan.approvals.map((c) => approvalRequest(c));
    const deadline = halted ? undefined : this.approvalDeadline(plan.approvals, now, entries);
    let untilMs = halted ? undefined : plan.nextRetryAt;
    for (const at of [deadline, halted ? undefined : alsoUntil])
      if (at !== undefined) untilMs = untilMs === undefined ? at : Math.min(untilMs, at);
    const stop = this.state.background
      .filter((c) => c.phase === 'running' && c.stopRequested !== undefined)
      .map((c) => c.call.toolCallId);
    if (plan.running === 0 && approvals.length === 0 && untilMs === undefined) {
      throw new Error(
        `turn ${this.state.turnId}: ${what} but nothing runs or waits (engine invariant broken)`,
      );
    }
    return {
      entries,
      op: {
        kind: 'wait',
        approvals,
        ...(untilMs !== undefined ? { untilMs } : {}),
        ...(stop.length > 0 ? { stop } : {}),
      },
    };
  }

  /**
   * Notes when the wait for background calls began; once it has lasted `maxBackgroundWaitMs`, the
   * calls still out are stopped. Returns when that will be, while it is ahead.
   */
  private backgroundWaitDeadline(now: number, entries: JournalEntry[]): number | undefined {
    const state = this.state;
    if (state.halt) return undefined;
    if (state.backgroundWaitSince === undefined)
      this.commit({ type: 'background.waiting', at: now }, entries);
    const maxMs = state.config.timeouts.maxBackgroundWaitMs;
    if (maxMs === undefined) return undefined;
    const until = (state.backgroundWaitSince ?? now) + maxMs;
    if (now < until) return until;
    if (state.background.some((c) => c.stopRequested === undefined))
      this.commit(
        {
          type: 'background.stopped',
          at: now,
          detail: `the turn waited ${maxMs} ms (maxBackgroundWaitMs) for it to finish in the background`,
        },
        entries,
      );
    return undefined;
  }

  /** Batch calls first (waves, concurrency), then background calls due again (retries, reruns). */
  private launch(
    batch: BatchState | undefined,
    now: number,
    entries: JournalEntry[],
  ): { plan: LaunchPlan; starts: ToolStart[] } {
    const { background } = this.state;
    const open = batch && batchOpen(this.state) ? batch : undefined;
    const plan: LaunchPlan = !open
      ? { starts: [], approvals: [], running: 0, blocked: 0 }
      : this.state.halt
        ? {
            starts: [],
            approvals: [],
            running: open.calls.filter((c) => c.phase === 'running' && !c.backgrounded).length,
            blocked: 0,
          }
        : planLaunches({ batch: open, dispatch: this.state.config.dispatch, now, background });
    const starts = this.startCalls(plan.starts, now, entries);
    if (background.length === 0) return { plan, starts };
    const runningInBatch = open ? open.calls.filter((c) => c.phase === 'running' && !c.backgrounded) : [];
    const later = planBackground(this.state, now, runningInBatch);
    starts.push(...this.startCalls(later.starts, now, entries));
    plan.running += later.running;
    plan.approvals.push(...later.approvals);
    if (later.nextRetryAt !== undefined)
      plan.nextRetryAt = Math.min(plan.nextRetryAt ?? Number.POSITIVE_INFINITY, later.nextRetryAt);
    return { plan, starts };
  }

  private startCalls(calls: readonly CallState[], now: number, entries: JournalEntry[]): ToolStart[] {
    const starts: ToolStart[] = [];
    for (const call of calls) {
      const overBudget = call.launched
        ? undefined
        : toolCallBlocked(this.state.config.budget, this.state.spent);
      if (overBudget) {
        this.commit({ type: 'turn.halted', reason: 'budget_exhausted', detail: overBudget }, entries);
        break;
      }
      this.commit(
        {
          type: 'tool.attempt_started',
          toolCallId: call.call.toolCallId,
          attempt: call.nextAttempt,
          at: now,
        },
        entries,
      );
      starts.push({
        call: call.call,
        attempt: call.nextAttempt,
        approved: call.approval?.approved === true,
        idempotencyKey: toolCallKey({
          revision: this.state.revision,
          turnId: this.state.turnId,
          toolCallId: call.call.toolCallId,
        }),
        timeoutMs: call.call.policy.timeoutMs ?? this.state.config.timeouts.toolMs,
      });
    }
    return starts;
  }

  /**
   * Notes when calls begin waiting for a decision (the approval timeout counts from there) and
   * returns the earliest deadline. Calls past it are settled by `expireApprovals`.
   */
  private approvalDeadline(
    waiting: readonly CallState[],
    now: number,
    entries: JournalEntry[],
  ): number | undefined {
    const timeoutMs = this.state.config.approvals.timeoutMs;
    let deadline: number | undefined;
    for (const call of waiting) {
      if (call.approvalRequestedAt === undefined) {
        this.commit({ type: 'tool.approval_requested', toolCallId: call.call.toolCallId, at: now }, entries);
      }
      if (timeoutMs !== undefined)
        deadline = Math.min(
          deadline ?? Number.POSITIVE_INFINITY,
          (call.approvalRequestedAt ?? now) + timeoutMs,
        );
    }
    return deadline;
  }

  /** Rejects, as expired, every call that waited for a decision longer than the approval timeout. */
  private expireApprovals(now: number, entries: JournalEntry[]): void {
    const timeoutMs = this.state.config.approvals.timeoutMs;
    if (timeoutMs === undefined || this.state.halt) return;
    for (const call of this.openCalls()) {
      if (
        call.approvalRequestedAt === undefined ||
        !needsApproval(call) ||
        now < call.approvalRequestedAt + timeoutMs
      )
        continue;
      this.commit(
        {
          type: 'tool.approval_decided',
          toolCallId: call.call.toolCallId,
          approved: false,
          reason: `${timeoutMs} ms`,
          expired: true,
        },
        entries,
      );
    }
  }

  /**
   * The response as recorded: the calls accepted from its stream first, exactly as they were
   * accepted, then the rest; its message is the prose followed by one tool-call part per call,
   * written from the calls so the transcript pairs with the outputs (and hosts need not carry
   * each call's arguments twice).
   */
  private withAcceptedCalls(response: ModelResponse): ModelResponse {
    const batch = this.state.batch;
    const streamed =
      batch?.streamOpen && batch.responseIndex === response.responseIndex
        ? batch.calls.map((c) => c.call)
        : [];
    const accepted = streamed.slice(0, response.streamedCallCount ?? streamed.length);
    const calls = accepted.length === 0 ? response.calls : [...accepted, ...response.calls];
    const { streamedCallCount: _count, ...rest } = response;
    const prose = response.message.content.filter((p) => p.type !== 'tool-call');
    return {
      ...rest,
      calls,
      message: {
        ...response.message,
        content:
          calls.length === 0
            ? prose
            : [
                ...prose,
                ...calls.map((c) => ({
                  type: 'tool-call' as const,
                  toolCallId: c.toolCallId,
                  toolName: c.toolName,
                  input: c.input,
                })),
              ],
      },
    };
  }

  private partialResponse(reason: string): ModelResponse {
    return {
      responseIndex: this.state.responseIndex,
      message: { role: 'assistant', content: [], partial: { reason } },
      calls: [],
      usage: { inputTokens: 0, outputTokens: 0 },
      finishReason: 'error',
    };
  }

  private modelOp(): ModelCall {
    const { turnId, responseIndex, revision } = this.state;
    const receipt = this.continuationReceipt();
    return {
      kind: 'call-model',
      responseIndex,
      attempt: this.state.modelFailures + 1,
      messages: this.state.messages,
      idempotencyKey: modelRequestKey({ revision, turnId, responseIndex }),
      timeoutMs: this.state.config.timeouts.modelMs,
      ...(receipt
        ? { continuation: { previousResponseId: receipt.responseId, fromMessage: receipt.messageCount } }
        : {}),
    };
  }

  /** The receipt a stateful turn continues from (none for a turn that sends its whole transcript). */
  private continuationReceipt(): TurnState['receipt'] {
    return this.state.config.continuation === 'since-receipt' ? this.state.receipt : undefined;
  }

  private openCall(toolCallId: string): CallState | undefined {
    if (this.state.finished) return undefined;
    return this.state.batch?.byId.get(toolCallId) ?? backgroundCall(this.state, toolCallId);
  }

  /** The current batch's calls, then background calls of earlier batches. */
  private openCalls(): CallState[] {
    const batch = this.state.batch;
    const calls = batch && batchOpen(this.state) ? [...batch.calls] : [];
    for (const call of this.state.background) if (!batch?.byId.has(call.call.toolCallId)) calls.push(call);
    return calls;
  }

  private transition(entry: JournalEntry): JournalEntry[] {
    const entries: JournalEntry[] = [];
    this.commit(entry, entries);
    this.settle(entries);
    return entries;
  }

  private commit(entry: JournalEntry, into: JournalEntry[]): void {
    applyEntry(this.state, entry);
    into.push(entry);
  }

  /**
   * Records whatever follows from the state by itself: decided outputs in batch order, a halt
   * decided while recording (loop stop), and the end of the turn.
   */
  private settle(into: JournalEntry[]): void {
    for (;;) {
      const state = this.state;
      if (state.finished) return;
      if (state.pendingHalt && !state.halt) {
        this.commit(
          { type: 'turn.halted', reason: state.pendingHalt.reason, detail: state.pendingHalt.detail },
          into,
        );
        continue;
      }
      if (batchOpen(state)) {
        // Outputs are recorded after the response that asked for them, never while it streams.
        if (state.batch.streamOpen) return;
        const next = state.batch.calls[state.batch.recordedCount];
        const output = next && batchOutputOf(next);
        if (next && output) {
          // The notice is derived again on replay (loop detection), so it is not recorded.
          const recorded = copyOutput(output, { withNotice: false });
          this.commit({ type: 'tool.completed', toolCallId: next.call.toolCallId, output: recorded }, into);
          continue;
        }
        return;
      }
      // Background outputs are delivered between requests, never into one that is in flight.
      if (state.background.length > 0 && (!state.modelInFlight || state.halt)) {
        const ready = deliverable(state);
        if (ready.length > 0) {
          const deliveries = ready.map((c) => ({
            toolCallId: c.call.toolCallId,
            toolName: c.call.toolName,
            output: copyOutput(c.final as ToolOutput, { withNotice: false }),
          }));
          this.commit({ type: 'background.delivered', deliveries }, into);
          continue;
        }
      }
      // A turn ends only once every background output is delivered.
      if (state.background.length > 0) return;
      if (state.halt) {
        this.commit({ type: 'turn.finished', status: state.halt.reason, reason: state.halt.detail }, into);
        return;
      }
      if (state.modelDone) this.commit({ type: 'turn.finished', status: 'completed' }, into);
      return;
    }
  }
}

export function approvalRequest(call: CallState): ApprovalRequest {
  return {
    toolCallId: call.call.toolCallId,
    toolName: call.call.toolName,
    input: call.call.input,
    reason: call.approvalReason ?? `${call.call.toolName} requires approval before it runs`,
  };
}

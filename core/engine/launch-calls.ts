import { toolCallBlocked } from '../budget/budget-check';
import type { JournalEntry } from '../schema/journal-entry';
import type { PreparedCall } from '../schema/prepared-call';
import { toolCallKey } from '../tools/idempotency-key';
import { applyGrants } from './approval-grants';
import { approvalDeadline, approvalRequest } from './approvals';
import { planBackground } from './background-calls';
import type { Step, ToolStart } from './engine-types';
import { type LaunchPlan, planLaunches } from './plan-launches';
import { commit, settle } from './record-entries';
import { outcomeOf } from './turn-outcome';
import { type BatchState, batchOpen, type CallState, type TurnState } from './turn-state';

/** What starts next: the calls of the batch in waves, background calls due again, or the wait. */
/**
 * Starts what may start now; when nothing does, the wait: for running calls, retries and
 * approvals (of the batch and of background calls), and the deadline `alsoUntil`.
 */
export function launchOrWait(
  state: TurnState,
  now: number,
  entries: JournalEntry[],
  what: string,
  alsoUntil?: number,
): Step {
  const { plan, starts } = launch(state, state.batch, now, entries);
  settle(state, entries);
  if (state.finished) return { entries, op: { kind: 'finished', outcome: outcomeOf(state) } };
  if (starts.length > 0) return { entries, op: { kind: 'run-tools', starts } };
  const halted = state.halt !== undefined;
  const approvals = halted ? [] : plan.approvals.map((c) => approvalRequest(c));
  const deadline = halted ? undefined : approvalDeadline(state, plan.approvals, now, entries);
  let untilMs = halted ? undefined : plan.nextRetryAt;
  for (const at of [deadline, halted ? undefined : alsoUntil])
    if (at !== undefined) untilMs = untilMs === undefined ? at : Math.min(untilMs, at);
  const stop = state.background
    .filter((c) => c.phase === 'running' && c.stopRequested !== undefined)
    .map((c) => c.call.toolCallId);
  if (plan.running === 0 && approvals.length === 0 && untilMs === undefined) {
    throw new Error(`turn ${state.turnId}: ${what} but nothing runs or waits (engine invariant broken)`);
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
export function backgroundWaitDeadline(
  state: TurnState,
  now: number,
  entries: JournalEntry[],
): number | undefined {
  if (state.halt) return undefined;
  if (state.backgroundWaitSince === undefined)
    commit(state, { type: 'background.waiting', at: now }, entries);
  const maxMs = state.config.timeouts.maxBackgroundWaitMs;
  if (maxMs === undefined) return undefined;
  const until = (state.backgroundWaitSince ?? now) + maxMs;
  if (now < until) return until;
  if (state.background.some((c) => c.stopRequested === undefined))
    commit(
      state,
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
export function launch(
  state: TurnState,
  batch: BatchState | undefined,
  now: number,
  entries: JournalEntry[],
): { plan: LaunchPlan; starts: ToolStart[] } {
  const { background } = state;
  applyGrants(state, now, entries);
  const open = batch && batchOpen(state) ? batch : undefined;
  const plan: LaunchPlan = !open
    ? { starts: [], approvals: [], running: 0, blocked: 0 }
    : state.halt
      ? {
          starts: [],
          approvals: [],
          running: open.calls.filter((c) => c.phase === 'running' && !c.backgrounded).length,
          blocked: 0,
        }
      : planLaunches({ batch: open, dispatch: state.config.dispatch, now, background });
  const starts = startCalls(state, plan.starts, now, entries);
  if (background.length === 0) return { plan, starts };
  const runningInBatch = open ? open.calls.filter((c) => c.phase === 'running' && !c.backgrounded) : [];
  const later = planBackground(state, now, runningInBatch);
  starts.push(...startCalls(state, later.starts, now, entries));
  plan.running += later.running;
  plan.approvals.push(...later.approvals);
  if (later.nextRetryAt !== undefined)
    plan.nextRetryAt = Math.min(plan.nextRetryAt ?? Number.POSITIVE_INFINITY, later.nextRetryAt);
  return { plan, starts };
}

export function startCalls(
  state: TurnState,
  calls: readonly CallState[],
  now: number,
  entries: JournalEntry[],
): ToolStart[] {
  const starts: ToolStart[] = [];
  for (const call of calls) {
    const overBudget = call.launched ? undefined : toolCallBlocked(state.config.budget, state.spent);
    if (overBudget) {
      commit(state, { type: 'turn.halted', reason: 'budget_exhausted', detail: overBudget }, entries);
      break;
    }
    commit(
      state,
      {
        type: 'tool.attempt_started',
        toolCallId: call.call.toolCallId,
        attempt: call.nextAttempt,
        at: now,
      },
      entries,
    );
    starts.push({
      call: callAsRun(call),
      attempt: call.nextAttempt,
      approved: call.approval?.approved === true,
      idempotencyKey: toolCallKey({
        revision: state.revision,
        turnId: state.turnId,
        toolCallId: call.call.toolCallId,
      }),
      timeoutMs: call.call.policy.timeoutMs ?? state.config.timeouts.toolMs,
    });
  }
  return starts;
}

/** The call as its attempts run it: with an approver's arguments, if edited (the transcript keeps the model's). */
export function callAsRun(call: CallState): PreparedCall {
  const edited = call.approval?.input;
  return edited === undefined ? call.call : { ...call.call, input: edited };
}

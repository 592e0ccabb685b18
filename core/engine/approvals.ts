import type { JournalEntry } from '../schema/journal-entry';
import type { ApprovalRequest } from './engine-types';
import { needsApproval } from './plan-launches';
import { commit, openCall, openCalls, transition } from './record-entries';
import type { CallState, TurnState } from './turn-state';

/** Calls that wait for a person's decision: when the wait began, its deadline, and the decision. */
/**
 * Notes when calls begin waiting for a decision (the approval timeout counts from there) and
 * returns the earliest deadline. Calls past it are settled by `expireApprovals`.
 */
export function approvalDeadline(
  state: TurnState,
  waiting: readonly CallState[],
  now: number,
  entries: JournalEntry[],
): number | undefined {
  const timeoutMs = state.config.approvals.timeoutMs;
  let deadline: number | undefined;
  for (const call of waiting) {
    if (call.approvalRequestedAt === undefined) {
      commit(state, { type: 'tool.approval_requested', toolCallId: call.call.toolCallId, at: now }, entries);
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
export function expireApprovals(state: TurnState, now: number, entries: JournalEntry[]): void {
  const timeoutMs = state.config.approvals.timeoutMs;
  if (timeoutMs === undefined || state.halt) return;
  for (const call of openCalls(state)) {
    if (
      call.approvalRequestedAt === undefined ||
      !needsApproval(call) ||
      now < call.approvalRequestedAt + timeoutMs
    )
      continue;
    commit(
      state,
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

export function onApproval(
  state: TurnState,
  {
    toolCallId,
    approved,
    reason,
  }: {
    toolCallId: string;
    approved: boolean;
    reason?: string;
  },
): JournalEntry[] {
  const call = openCall(state, toolCallId);
  if (!call || !needsApproval(call) || state.halt) return [];
  return transition(state, {
    type: 'tool.approval_decided',
    toolCallId,
    approved,
    ...(reason ? { reason } : {}),
  });
}

export function approvalRequest(call: CallState): ApprovalRequest {
  return {
    toolCallId: call.call.toolCallId,
    toolName: call.call.toolName,
    input: call.call.input,
    reason: call.approvalReason ?? `${call.call.toolName} requires approval before it runs`,
  };
}

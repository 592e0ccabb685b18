import type { ApprovalDecision } from '../schema/approval-decision';
import { type ApprovalGrant, maxGrantIdChars } from '../schema/approval-grant';
import { formatIssues, quoted } from '../schema/format-issues';
import type { JournalEntry } from '../schema/journal-entry';
import { jsonSchemaChecker } from '../schema/json-schema-check';
import { stableHash } from '../tools/stable-hash';
import { checkGrant } from './approval-grants';
import type { ApprovalRequest } from './engine-types';
import { needsApproval } from './plan-launches';
import { commit, openCall, openCalls, transition } from './record-entries';
import type { CallState, TurnState } from './turn-state';

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

/**
 * An approver (a function, on the in-process executor) whose edits keep failing the tool's schema
 * is not asked forever: after this many refusals the call is rejected.
 */
export const maxRefusedDecisions = 3;

/**
 * Records a person's decision on a call that waits for one. A decision that does not check
 * (see `checkDecision`: hosts check first and tell the decider) records nothing.
 */
export function onApproval(state: TurnState, decision: ApprovalDecision, now: number): JournalEntry[] {
  if (checkDecision(state, decision) !== undefined) return [];
  const entry: Extract<JournalEntry, { type: 'tool.approval_decided' }> = {
    type: 'tool.approval_decided',
    toolCallId: decision.toolCallId,
    approved: decision.decision === 'approve',
  };
  if (decision.reason) entry.reason = decision.reason;
  if (decision.decision === 'respond') {
    entry.decision = 'respond';
    entry.output = decision.output ?? '';
  }
  if (decision.decision === 'approve' && decision.input !== undefined) entry.input = decision.input;
  if (decision.by) entry.by = decision.by;
  if (decision.via) entry.via = decision.via;
  entry.at = now;
  const granted = grantOf(state, decision, now);
  if (!granted) return transition(state, entry);
  // "Always allow": the grant first, then this call's approval, by it.
  entry.grantId = granted.grantId;
  return [...transition(state, { type: 'approval.granted', grant: granted }), ...transition(state, entry)];
}

/** `<turn id>/<call id>`, unless that is longer than a grant id may be: then a digest of the two. */
function defaultGrantId(turnId: string, toolCallId: string): string {
  const id = `${turnId}/${toolCallId}`;
  return id.length <= maxGrantIdChars ? id : `remembered-${stableHash([turnId, toolCallId])}`;
}

/** The grant an approval that says "always allow" (`remember`) makes, for the call's tool. */
function grantOf(state: TurnState, decision: ApprovalDecision, now: number): ApprovalGrant | undefined {
  const remember = decision.remember;
  const call = openCall(state, decision.toolCallId);
  if (decision.decision !== 'approve' || !remember || !call) return undefined;
  const grant: ApprovalGrant = {
    grantId: remember.grantId ?? defaultGrantId(state.turnId, decision.toolCallId),
    toolName: call.call.toolName,
    match: remember.match,
    scope: remember.scope,
    at: now,
  };
  if (decision.reason) grant.reason = decision.reason;
  if (decision.by) grant.by = decision.by;
  if (decision.via) grant.via = decision.via;
  return grant;
}

/**
 * Why a decision cannot be taken, or undefined when it can: the call must be waiting for one, and
 * edited arguments must match the tool's argument schema recorded with the call (a refused edit
 * changes nothing; the call keeps waiting). The same check runs in a Temporal turn's update
 * validator, so a refused decision is never accepted into history.
 */
export function checkDecision(state: TurnState, decision: ApprovalDecision): string | undefined {
  const call = openCall(state, decision.toolCallId);
  if (!call || !needsApproval(call) || state.halt)
    return `tool call ${quoted(decision.toolCallId)} is not waiting for approval`;
  const granted = grantOf(state, decision, 0);
  return (granted && checkGrant(state, granted)) ?? editRefusal(call, decision);
}

/**
 * Why a decision cannot be taken while its call still waits (its edit does not match the schema,
 * its grant's id is in force), or undefined: also when the call no longer waits (the decision is
 * then simply not taken). An approver asked again after a refusal needs only this answer.
 */
export function refusedEdit(state: TurnState, decision: ApprovalDecision): string | undefined {
  const call = openCall(state, decision.toolCallId);
  if (!call || !needsApproval(call) || state.halt) return undefined;
  // An approver's "always allow" whose grant id is in force would record nothing: asked again too.
  const granted = grantOf(state, decision, 0);
  return (granted && checkGrant(state, granted)) ?? editRefusal(call, decision);
}

function editRefusal(call: CallState, decision: ApprovalDecision): string | undefined {
  if (decision.decision !== 'approve' || decision.input === undefined) return undefined;
  const schema = call.call.inputSchema ?? call.approvalSchema;
  if (!schema)
    return `${call.call.toolName}'s call ${decision.toolCallId} has no recorded argument schema to check an edit against (it was made before edits were possible): approve it as it is, reject it, or respond`;
  const checked = jsonSchemaChecker(schema);
  if (typeof checked === 'string')
    return `${call.call.toolName}'s argument schema cannot check an edit: ${checked}`;
  const parsed = checked.safeParse(decision.input);
  if (!parsed.success)
    return `the edited arguments do not match ${call.call.toolName}'s schema: ${formatIssues(parsed.error, { root: 'input' })}; nothing ran, the call still waits`;
  return undefined;
}

export function approvalRequest(call: CallState): ApprovalRequest {
  return {
    toolCallId: call.call.toolCallId,
    toolName: call.call.toolName,
    input: call.call.input,
    reason: call.approvalReason ?? `${call.call.toolName} requires approval before it runs`,
    ...((call.call.inputSchema ?? call.approvalSchema) && {
      inputSchema: call.call.inputSchema ?? call.approvalSchema,
    }),
  };
}

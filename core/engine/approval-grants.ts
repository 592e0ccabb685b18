import type { ApprovalGrant, GrantRevocation } from '../schema/approval-grant';
import { grantCovers, maxGrantsInForce } from '../schema/approval-grant';
import { quoted } from '../schema/format-issues';
import type { JournalEntry } from '../schema/journal-entry';
import { needsApproval } from './plan-launches';
import { commit, openCalls, transition } from './record-entries';
import type { TurnState } from './turn-state';

/**
 * Lets the calls that wait for a decision and that a grant covers run: each is recorded as approved
 * by the grant, with the grant's approver, before it starts. Runs wherever launches are planned,
 * so a grant taken while calls wait lets them go at once, and later calls never wait.
 */
export function applyGrants(state: TurnState, now: number, entries: JournalEntry[]): void {
  const grants = state.grants;
  if (!grants || state.halt) return;
  for (const call of openCalls(state)) {
    if (!needsApproval(call)) continue;
    const grant = grants.find((g) => grantCovers(g, call.call.toolName, call.call.input));
    if (!grant) continue;
    const entry: Extract<JournalEntry, { type: 'tool.approval_decided' }> = {
      type: 'tool.approval_decided',
      toolCallId: call.call.toolCallId,
      approved: true,
      grantId: grant.grantId,
      at: now,
    };
    if (grant.by) entry.by = grant.by;
    if (grant.via) entry.via = grant.via;
    commit(state, entry, entries);
  }
}

/** Why this grant cannot be taken, or undefined. */
export function checkGrant(state: TurnState, grant: Pick<ApprovalGrant, 'grantId'>): string | undefined {
  if (state.finished) return `turn ${state.turnId} has ended; it takes no grant`;
  if (state.grants?.some((g) => g.grantId === grant.grantId))
    return `grant ${quoted(grant.grantId)} is already in force (revoke it first to change it)`;
  if ((state.grants?.length ?? 0) >= maxGrantsInForce)
    return `turn ${state.turnId} holds ${maxGrantsInForce} grants already: revoke one first`;
  return undefined;
}

export function checkRevoke(state: TurnState, revocation: GrantRevocation): string | undefined {
  if (!state.grants?.some((g) => g.grantId === revocation.grantId))
    return `no grant ${quoted(revocation.grantId)} is in force in turn ${state.turnId}`;
  return undefined;
}

export function onGrant(state: TurnState, grant: ApprovalGrant, now: number): JournalEntry[] {
  if (checkGrant(state, grant) !== undefined) return [];
  return transition(state, { type: 'approval.granted', grant: { ...grant, at: now } });
}

export function onRevoke(state: TurnState, revocation: GrantRevocation, now: number): JournalEntry[] {
  if (state.finished || checkRevoke(state, revocation) !== undefined) return [];
  const entry: Extract<JournalEntry, { type: 'approval.revoked' }> = {
    type: 'approval.revoked',
    grantId: revocation.grantId,
    at: now,
  };
  if (revocation.by) entry.by = revocation.by;
  if (revocation.via) entry.via = revocation.via;
  return transition(state, entry);
}

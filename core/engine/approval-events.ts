import type { ApprovalDecision } from '../schema/approval-decision';
import type { ApprovalGrant, GrantRevocation } from '../schema/approval-grant';
import type { JournalEntry } from '../schema/journal-entry';
import { checkGrant, checkRevoke, onGrant, onRevoke } from './approval-grants';
import { checkDecision, onApproval, refusedEdit } from './approvals';
import type { TurnState } from './turn-state';

/** What people send a turn about its approvals: a decision on a call, a grant, a grant's end. */
export type ApprovalEvent =
  | ({ kind: 'approval' } & ApprovalDecision)
  | { kind: 'grant'; grant: ApprovalGrant }
  | ({ kind: 'revoke' } & GrantRevocation);

/** Records the event; one that does not check (see `checkApprovalEvent`) records nothing. */
export function onApprovalEvent(state: TurnState, event: ApprovalEvent, now: number): JournalEntry[] {
  switch (event.kind) {
    case 'approval':
      return onApproval(state, event, now);
    case 'grant':
      return onGrant(state, event.grant, now);
    case 'revoke':
      return onRevoke(state, event, now);
  }
}

/**
 * Why the event cannot be taken now, or undefined. Hosts check first and tell the sender (a
 * Temporal turn's update validators refuse it, so it never enters history). `whileWaiting`: a
 * decision on a call that no longer waits is not refused (it is simply not taken): an approver is
 * asked again only about a call that still waits.
 */
export function checkApprovalEvent(
  state: TurnState,
  event: ApprovalEvent,
  { whileWaiting = false }: { whileWaiting?: boolean } = {},
): string | undefined {
  switch (event.kind) {
    case 'approval':
      return whileWaiting ? refusedEdit(state, event) : checkDecision(state, event);
    case 'grant':
      return checkGrant(state, event.grant);
    case 'revoke':
      return checkRevoke(state, event);
  }
}

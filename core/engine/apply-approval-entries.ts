import type { JournalEntry } from '../schema/journal-entry';
import { callOf, decide, ranAttempts } from './apply-call-entries';
import type { TurnState } from './turn-state';

type EntryOf<T extends JournalEntry['type']> = Extract<JournalEntry, { type: T }>;

/** The reducer's part for decisions and grants. */
export function applyDecided(state: TurnState, entry: EntryOf<'tool.approval_decided'>): TurnState {
  const call = callOf(state, entry.toolCallId);
  if (call.phase === 'done') return state;
  call.approval = {
    approved: entry.approved,
    ...(entry.reason ? { reason: entry.reason } : {}),
    ...(entry.approved && entry.input !== undefined ? { input: entry.input } : {}),
    ...(entry.by ? { by: entry.by } : {}),
    ...(entry.via ? { via: entry.via } : {}),
    ...(entry.grantId ? { grantId: entry.grantId } : {}),
  };
  call.approvalRequestedAt = undefined;
  if (entry.approved) call.phase = 'pending';
  else if (entry.decision === 'respond')
    decide(call, {
      status: 'ok',
      content: entry.output ?? '',
      attempts: ranAttempts(call),
      answeredBy: entry.by ?? 'an approver',
    });
  else {
    const who = entry.by ? `an approver (${entry.by})` : 'an approver';
    decide(call, {
      status: 'error',
      content: entry.expired
        ? `no approval decision within ${entry.reason ?? 'the approval timeout'}; the call was not run`
        : `the call was rejected by ${who}${entry.reason ? `: ${entry.reason}` : ''}`,
      attempts: ranAttempts(call),
      errorType: entry.expired ? 'approval-expired' : 'rejected',
    });
  }
  return state;
}

export function applyGranted(state: TurnState, entry: EntryOf<'approval.granted'>): TurnState {
  const others = (state.grants ?? []).filter((g) => g.grantId !== entry.grant.grantId);
  state.grants = [...others, entry.grant];
  return state;
}

export function applyRevoked(state: TurnState, entry: EntryOf<'approval.revoked'>): TurnState {
  const left = (state.grants ?? []).filter((g) => g.grantId !== entry.grantId);
  if (left.length > 0) state.grants = left;
  else delete state.grants;
  // Its conversation learns of it at the turn's end, also of a grant it was handed while it ran.
  state.grantsRevoked = [...(state.grantsRevoked ?? []), entry.grantId];
  return state;
}

import { DurableTurnsError } from '../errors/durable-turns-error';
import { type ApprovalGrant, type GrantRevocation, maxGrantsInForce } from '../schema/approval-grant';
import { quoted } from '../schema/format-issues';
import type { ConversationState, ConversationStep } from './conversation-state';

/**
 * A conversation's grants ("always allow" for its later turns). The conversation holds them; each
 * turn starts with them and may change them (an approval that says "always, in this conversation",
 * a revoke sent to the turn): at its end, what it reports in force is what the conversation keeps,
 * together with grants given in the conversation meanwhile, less those revoked in it meanwhile.
 */

/** Why the conversation does not take this grant (closed, the id in force), or undefined. */
export function grantRefusal(
  state: ConversationState,
  grant: Pick<ApprovalGrant, 'grantId'>,
): string | undefined {
  if (state.closed) return `conversation ${state.conversationId} is closed; it takes no grant`;
  if (state.grants?.some((g) => g.grantId === grant.grantId))
    return `grant ${quoted(grant.grantId)} is already in force in conversation ${state.conversationId} (revoke it first to change it)`;
  if ((state.grants?.length ?? 0) >= maxGrantsInForce)
    return `conversation ${state.conversationId} holds ${maxGrantsInForce} grants already: revoke one first`;
  return undefined;
}

/** Why no grant of this id can be in force in the conversation, or undefined. */
export function revokeRefusal(state: ConversationState, revocation: GrantRevocation): string | undefined {
  const held = state.grants?.some((g) => g.grantId === revocation.grantId) ?? false;
  if (held || state.running) return undefined;
  return `no grant ${quoted(revocation.grantId)} is in force in conversation ${state.conversationId}`;
}

/** Takes a grant for every later turn, and the running one. Throws the refusal (see `grantRefusal`). */
export function grantInConversation(state: ConversationState, grant: ApprovalGrant): ConversationStep {
  const refused = grantRefusal(state, grant);
  if (refused !== undefined) throw new DurableTurnsError(refused, { code: 'grant-refused' });
  const given: ApprovalGrant = { ...grant, scope: 'conversation' };
  state.grants = [...(state.grants ?? []), given];
  const running = state.running;
  if (!running) return { actions: [] };
  if (running.grantsRevoked)
    running.grantsRevoked = running.grantsRevoked.filter((id) => id !== grant.grantId);
  return { actions: [{ kind: 'grant', turnId: running.turnId, grant: given }] };
}

/**
 * Ends a conversation's grant, in the running turn too. A grant the running turn made for the
 * conversation is not known here until the turn ends: its revoke is handed to the turn. Throws
 * when no grant of that id can be in force.
 */
export function revokeInConversation(
  state: ConversationState,
  revocation: GrantRevocation,
): ConversationStep {
  const refused = revokeRefusal(state, revocation);
  if (refused !== undefined) throw new DurableTurnsError(refused, { code: 'grant-refused' });
  const running = state.running;
  const left = state.grants?.filter((g) => g.grantId !== revocation.grantId) ?? [];
  if (left.length > 0) state.grants = left;
  else delete state.grants;
  if (!running) return { actions: [] };
  running.grantsRevoked = [...(running.grantsRevoked ?? []), revocation.grantId];
  return { actions: [{ kind: 'revoke', turnId: running.turnId, revocation }] };
}

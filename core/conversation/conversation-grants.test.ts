import type { ApprovalGrant } from '../schema/approval-grant';
import { grantInConversation, revokeInConversation } from './conversation-grants';
import { type ConversationState, newConversation, sendMessage, turnEnded } from './conversation-state';

const grant = (grantId: string, scope: ApprovalGrant['scope'] = 'conversation'): ApprovalGrant => ({
  grantId,
  toolName: 'deploy',
  match: [],
  scope,
});
const send = (state: ConversationState, messageId: string) =>
  sendMessage(state, { messageId, message: { role: 'user', content: messageId } });
const ids = (state: ConversationState) => state.grants?.map((g) => g.grantId);

describe("a conversation's grants", () => {
  test('each turn starts with the grants in force; one given while a turn runs reaches it too', () => {
    const state = newConversation('c');
    grantInConversation(state, grant('a'));
    const started = send(state, 'm1').actions[0];
    expect(started).toMatchObject({ kind: 'start-turn', grants: [grant('a')] });
    expect(grantInConversation(state, grant('b')).actions).toEqual([
      { kind: 'grant', turnId: 'c#1', grant: grant('b') },
    ]);
    expect(() => grantInConversation(state, grant('a'))).toThrow(/grant "a" is already in force/);
  });

  test('at a turn’s end the grants it was given are as it reports them; its own conversation grants join; turn grants do not', () => {
    const state = newConversation('c');
    grantInConversation(state, grant('given-kept'));
    grantInConversation(state, grant('given-revoked-in-turn'));
    send(state, 'm1');
    // Given while it ran, and not delivered (the turn ended first): kept all the same.
    grantInConversation(state, grant('given-meanwhile'));
    turnEnded(state, {
      turnId: 'c#1',
      recordedSteers: [],
      grants: [grant('given-kept'), grant('remembered-in-turn'), grant('turn-only', 'turn')],
    });
    expect(ids(state)).toEqual(['given-meanwhile', 'given-kept', 'remembered-in-turn']);
  });

  test('a grant revoked in the conversation while a turn runs does not come back with its end', () => {
    const state = newConversation('c');
    grantInConversation(state, grant('a'));
    send(state, 'm1');
    expect(revokeInConversation(state, { grantId: 'a' }).actions).toEqual([
      { kind: 'revoke', turnId: 'c#1', revocation: { grantId: 'a' } },
    ]);
    // A grant the turn made for the conversation is not known yet: its revoke goes to the turn.
    expect(revokeInConversation(state, { grantId: 'made-in-turn' }).actions).toHaveLength(1);
    turnEnded(state, { turnId: 'c#1', recordedSteers: [], grants: [grant('a'), grant('made-in-turn')] });
    expect(state.grants).toBeUndefined();
    expect(() => revokeInConversation(state, { grantId: 'a' })).toThrow(/no grant "a" is in force/);
  });

  test('a grant handed to the running turn and revoked in it does not come back with its end', () => {
    const state = newConversation('c');
    send(state, 'm1');
    grantInConversation(state, grant('handed'));
    turnEnded(state, { turnId: 'c#1', recordedSteers: [], grants: [], grantsRevoked: ['handed'] });
    expect(state.grants).toBeUndefined();
  });

  test('a conversation holds at most 100 grants: the next one is refused, saying so', () => {
    const state = newConversation('c');
    for (let i = 0; i < 100; i++) grantInConversation(state, grant(`g${i}`));
    expect(() => grantInConversation(state, grant('one-more'))).toThrow(
      /holds 100 grants already: revoke one first/,
    );
  });

  test('a turn that ended without a result changes no grant', () => {
    const state = newConversation('c');
    grantInConversation(state, grant('a'));
    send(state, 'm1');
    turnEnded(state, { turnId: 'c#1', recordedSteers: [] });
    expect(ids(state)).toEqual(['a']);
  });
});

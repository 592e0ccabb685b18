import {
  type ConversationState,
  closeConversation,
  conversationStateSchema,
  newConversation,
  receiptLimit,
  receiptOf,
  sendMessage,
  turnEnded,
} from './conversation-state';

const user = (text: string) => ({ role: 'user' as const, content: text });
const send = (
  state: ConversationState,
  messageId: string,
  policy?: 'enqueue' | 'reject' | 'interrupt' | 'steer',
) => sendMessage(state, { messageId, message: user(messageId), ...(policy ? { policy } : {}) });

/** A conversation whose first turn (`c#1`, started by message `m1`) is running. */
function running(): ConversationState {
  const state = newConversation('c');
  send(state, 'm1');
  return state;
}

describe('a conversation', () => {
  test('a message with no turn running starts one, named after the conversation and its number', () => {
    const state = newConversation('support-42');
    const { receipt, actions } = send(state, 'm1');
    expect(receipt).toEqual({ messageId: 'm1', status: 'started', turnId: 'support-42#1' });
    expect(actions).toEqual([
      {
        kind: 'start-turn',
        turnId: 'support-42#1',
        turnNumber: 1,
        messages: [{ messageId: 'm1', message: user('m1'), seq: 0 }],
      },
    ]);
  });

  test('enqueue (the default): each waiting message starts a turn of its own when the one before ends, in arrival order', () => {
    const state = running();
    expect(send(state, 'm2').receipt).toEqual({ messageId: 'm2', status: 'queued', ahead: 1 });
    expect(send(state, 'm3').receipt).toEqual({ messageId: 'm3', status: 'queued', ahead: 2 });
    const second = turnEnded(state, { turnId: 'c#1', recordedSteers: [] });
    expect(second.actions).toMatchObject([
      { kind: 'start-turn', turnId: 'c#2', messages: [{ messageId: 'm2' }] },
    ]);
    expect(receiptOf(state, 'm3')).toEqual({ messageId: 'm3', status: 'queued', ahead: 1 });
    const third = turnEnded(state, { turnId: 'c#2', recordedSteers: [] });
    expect(third.actions).toMatchObject([
      { kind: 'start-turn', turnId: 'c#3', messages: [{ messageId: 'm3' }] },
    ]);
    expect(turnEnded(state, { turnId: 'c#3', recordedSteers: [] }).actions).toEqual([]);
    expect(state.running).toBeUndefined();
  });

  test('reject: refused while a turn runs, naming it; a retry of it is refused the same way', () => {
    const state = running();
    const first = send(state, 'm2', 'reject');
    expect(first).toMatchObject({
      receipt: { status: 'rejected', turnId: 'c#1' },
      actions: [],
      duplicate: false,
    });
    expect(send(state, 'm2', 'reject')).toMatchObject({
      receipt: { status: 'rejected', turnId: 'c#1' },
      duplicate: true,
    });
    expect(turnEnded(state, { turnId: 'c#1', recordedSteers: [] }).actions).toEqual([]);
  });

  test('interrupt: the running turn is cancelled once, and the next turn starts with the interrupts, ahead of the queue', () => {
    const state = running();
    send(state, 'queued');
    expect(send(state, 'stop', 'interrupt').actions).toEqual([{ kind: 'cancel-turn', turnId: 'c#1' }]);
    // A second interrupt while the cancel is under way asks for nothing more.
    expect(send(state, 'stop-too', 'interrupt').actions).toEqual([]);
    expect(receiptOf(state, 'stop')).toEqual({ messageId: 'stop', status: 'queued', ahead: 1 });
    expect(receiptOf(state, 'queued')).toEqual({ messageId: 'queued', status: 'queued', ahead: 2 });
    const next = turnEnded(state, { turnId: 'c#1', recordedSteers: [] });
    expect(next.actions).toMatchObject([
      { kind: 'start-turn', turnId: 'c#2', messages: [{ messageId: 'stop' }, { messageId: 'stop-too' }] },
    ]);
    expect(turnEnded(state, { turnId: 'c#2', recordedSteers: [] }).actions).toMatchObject([
      { kind: 'start-turn', turnId: 'c#3', messages: [{ messageId: 'queued' }] },
    ]);
  });

  test('steer: handed to the running turn; a steer it did not record before it ended starts the next turn, in arrival order', () => {
    const state = running();
    expect(send(state, 's1', 'steer').actions).toMatchObject([
      { kind: 'steer', turnId: 'c#1', message: { messageId: 's1' } },
    ]);
    expect(send(state, 's2', 'steer').receipt).toEqual({ messageId: 's2', status: 'steered', turnId: 'c#1' });
    send(state, 'later');
    // The turn recorded s1 at a model request, then made its last request before s2 arrived.
    const next = turnEnded(state, { turnId: 'c#1', recordedSteers: ['s1'] });
    expect(next.actions).toMatchObject([
      { kind: 'start-turn', turnId: 'c#2', messages: [{ messageId: 's2' }] },
    ]);
    expect(receiptOf(state, 's1')).toEqual({ messageId: 's1', status: 'steered', turnId: 'c#1' });
    expect(receiptOf(state, 's2')).toEqual({ messageId: 's2', status: 'started', turnId: 'c#2' });
  });

  test('a steer while the turn is being cancelled joins the interrupt in the next turn', () => {
    const state = running();
    send(state, 'stop', 'interrupt');
    expect(send(state, 'hint', 'steer').actions).toEqual([]);
    expect(turnEnded(state, { turnId: 'c#1', recordedSteers: [] }).actions).toMatchObject([
      { kind: 'start-turn', messages: [{ messageId: 'stop' }, { messageId: 'hint' }] },
    ]);
  });

  test('a retried send changes nothing and reports where the message stands now', () => {
    const state = running();
    send(state, 'm2');
    const retry = send(state, 'm2');
    expect(retry).toMatchObject({ duplicate: true, actions: [], receipt: { status: 'queued', ahead: 1 } });
    turnEnded(state, { turnId: 'c#1', recordedSteers: [] });
    expect(send(state, 'm2', 'interrupt')).toMatchObject({
      duplicate: true,
      actions: [],
      receipt: { status: 'started', turnId: 'c#2' },
    });
    expect(state.turnCount).toBe(2);
  });

  test('the end of a turn that is not the running one changes nothing', () => {
    const state = running();
    send(state, 'm2');
    expect(turnEnded(state, { turnId: 'c#7', recordedSteers: [] }).actions).toEqual([]);
    expect(state.running?.turnId).toBe('c#1');
  });

  test('closed: waiting messages are dropped, the running turn ends as it would, and sends are refused with a clear error', () => {
    const state = running();
    send(state, 'm2');
    send(state, 'm3', 'interrupt');
    expect(closeConversation(state)).toEqual({ dropped: ['m3', 'm2'] });
    expect(receiptOf(state, 'm2')).toEqual({ messageId: 'm2', status: 'dropped' });
    expect(turnEnded(state, { turnId: 'c#1', recordedSteers: [] }).actions).toEqual([]);
    expect(() => send(state, 'm4')).toThrow('conversation c is closed: it takes no more messages');
    // A retry of a message it had is still answered.
    expect(send(state, 'm1').receipt).toEqual({ messageId: 'm1', status: 'started', turnId: 'c#1' });
  });

  test(`it remembers the last ${receiptLimit} settled messages, and every waiting one`, () => {
    const state = running();
    send(state, 'waiting');
    for (let i = 0; i < receiptLimit + 10; i++) send(state, `r${i}`, 'reject');
    expect(state.receipts).toHaveLength(receiptLimit);
    expect(receiptOf(state, 'm1')).toBeUndefined();
    expect(receiptOf(state, 'r10')).toBeUndefined();
    expect(receiptOf(state, 'r11')?.status).toBe('rejected');
    expect(receiptOf(state, 'waiting')?.status).toBe('queued');
  });

  test('its state is plain data that survives JSON (continue-as-new, a journal) and its schema', () => {
    const state = running();
    send(state, 'm2');
    send(state, 's', 'steer');
    const copy = conversationStateSchema.parse(JSON.parse(JSON.stringify(state)));
    expect(copy).toEqual(state);
    expect(turnEnded(copy, { turnId: 'c#1', recordedSteers: [] }).actions).toMatchObject([
      { kind: 'start-turn', messages: [{ messageId: 's' }] },
    ]);
  });

  test('a send with a bad message is refused naming the field, and records nothing', () => {
    const state = running();
    expect(() => sendMessage(state, { messageId: '', message: user('x') })).toThrow(
      'message id must not be empty',
    );
    expect(() =>
      sendMessage(state, { messageId: 'x', message: user('x'), policy: 'later' as 'steer' }),
    ).toThrow(/policy/);
    expect(state.received).toBe(1);
  });
});

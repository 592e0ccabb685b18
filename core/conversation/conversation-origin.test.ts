import { branchOrigin, checkOriginAgainst, turnStartOf } from './conversation-origin';
import { newConversation, sendMessage } from './conversation-state';

describe('where a branch comes from', () => {
  const source = { conversationId: 'b', incarnation: 'i-b', endedTurns: 2 };

  test("the source's turns up to the point, then what the source came from", () => {
    expect(
      branchOrigin({ source: { ...source, origin: [{ conversationId: 'a', turns: 3 }] }, afterTurn: 2 }),
    ).toEqual([
      { conversationId: 'b', incarnation: 'i-b', turns: 2 },
      { conversationId: 'a', turns: 3 },
    ]);
    // Before its first turn: only what it came from is read (a fresh start from the same past).
    expect(branchOrigin({ source, afterTurn: 0 })).toEqual([
      { conversationId: 'b', incarnation: 'i-b', turns: 0 },
    ]);
  });

  test('a point past its ended turns, or not a turn number, is refused naming what it has', () => {
    expect(() => branchOrigin({ source, afterTurn: 3 })).toThrow(
      'conversation b has 2 ended turns: a branch goes after one of them (0 to 2), not after 3',
    );
    expect(() => branchOrigin({ source, afterTurn: 1.5 })).toThrow(/not after 1.5/);
  });

  test('a chain of branches is bounded', () => {
    const origin = Array.from({ length: 64 }, (_, n) => ({ conversationId: `c${n}`, turns: 1 }));
    expect(() => branchOrigin({ source: { ...source, origin }, afterTurn: 1 })).toThrow(/deeper than 64/);
  });
});

describe("a branch's forked first turn", () => {
  const fork = {
    from: 'a#2',
    point: { afterResponse: 0 },
    input: [{ role: 'user' as const, content: 'wait' }],
    events: [],
  };

  test('its turn 1 starts with the fork, and the fork is gone after: turn 2 is an ordinary turn', () => {
    const state = newConversation('b', 'i', [{ conversationId: 'a', turns: 1 }], fork);
    const first = sendMessage(state, { messageId: 'm1', message: { role: 'user', content: 'instead' } });
    expect(first.actions).toEqual([expect.objectContaining({ kind: 'start-turn', turnNumber: 1, fork })]);
    expect(state.firstTurnFork).toBeUndefined();
    // Kept with the running turn: a host that lost it before its first entry starts it again forked.
    expect(state.running?.fork).toEqual(fork);
  });

  test('begins with the source turn’s input, its messages the one next word after the record', () => {
    const messages = [
      { message: { role: 'user' as const, content: 'instead' } },
      { message: { role: 'user' as const, content: 'and this' } },
    ];
    expect(turnStartOf({ messages, fork })).toEqual({
      input: fork.input,
      fork: {
        from: 'a#2',
        point: { afterResponse: 0 },
        events: [],
        message: {
          role: 'user',
          content: [
            { type: 'text', text: 'instead' },
            { type: 'text', text: 'and this' },
          ],
        },
      },
    });
    expect(turnStartOf({ messages })).toEqual({ input: messages.map((m) => m.message) });
  });
});

describe('a source checked before its turns are read', () => {
  const origin = { conversationId: 'a', incarnation: 'i-a', turns: 2 };
  test('the same conversation passes; one gone, or begun again under its id, is refused saying which', () => {
    expect(() => checkOriginAgainst(origin, 'i-a')).not.toThrow();
    // A conversation from before incarnations has none to compare: taken as it is.
    expect(() => checkOriginAgainst(origin, null)).not.toThrow();
    expect(() => checkOriginAgainst(origin, undefined)).toThrow(
      'conversation a, which this branch came from, is gone (deleted)',
    );
    expect(() => checkOriginAgainst(origin, 'i-b')).toThrow('was deleted and its id begun again');
  });
});

import { branchOrigin } from './conversation-origin';

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

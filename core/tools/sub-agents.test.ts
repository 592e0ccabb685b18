import { budgetSlice, maxSubAgentDepth, subAgentDepth, subAgentTurnId } from './sub-agents';

describe('sub-agent turn ids', () => {
  test('are the call’s, under its parent, and say how deep they are', () => {
    const one = subAgentTurnId('t1', 'c1');
    const two = subAgentTurnId(one, 'c2');
    expect([one, two]).toEqual(['t1/agent/c1', 't1/agent/c1/agent/c2']);
    expect([subAgentDepth('t1'), subAgentDepth(one), subAgentDepth(two)]).toEqual([0, 1, 2]);
  });

  test('too long, or with characters a turn id cannot have, are a digest that keeps the depth', () => {
    const deep = subAgentTurnId(`${'t'.repeat(250)}/agent/c1`, 'call with spaces');
    expect(deep).toMatch(/^agent2-/);
    expect(subAgentDepth(deep)).toBe(2);
    expect(subAgentDepth(subAgentTurnId(deep, 'c3'))).toBe(maxSubAgentDepth);
  });
});

describe('a sub-agent’s budget', () => {
  test('is its tool’s, within what its parent has left; the parent’s wall time left is its deadline', () => {
    expect(
      budgetSlice({ maxModelResponses: 10, maxTokens: 500 }, { modelResponses: 3, wallTimeMs: 60_000 }),
    ).toEqual({ maxModelResponses: 3, maxTokens: 500, maxWallTimeMs: 60_000 });
    expect(budgetSlice(undefined, {})).toEqual({});
  });

  test('a parent with nothing left of something starts none, saying what is spent', () => {
    expect(budgetSlice({ maxToolCalls: 5 }, { toolCalls: 0 })).toBe(
      "its parent's budget has no toolCalls left",
    );
  });
});

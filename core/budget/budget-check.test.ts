import type { Budget } from '../schema/turn-config';
import {
  addSpent,
  type BudgetSpent,
  chargeSpent,
  continuationBlocked,
  modelRequestBlocked,
  toolCallBlocked,
} from './budget-check';

const spent = (overrides: Partial<BudgetSpent> = {}): BudgetSpent => ({
  modelResponses: 0,
  toolCalls: 0,
  usage: { inputTokens: 0, outputTokens: 0 },
  startedAt: 1_000,
  ...overrides,
});

describe('budget checks', () => {
  it('blocks nothing when the budget sets no limits', () => {
    const big = spent({
      modelResponses: 1e6,
      toolCalls: 1e6,
      usage: { inputTokens: 1e9, outputTokens: 1e9 },
    });
    expect(modelRequestBlocked({}, big, 1e12)).toBeUndefined();
    expect(continuationBlocked({}, big, 1e12)).toBeUndefined();
    expect(toolCallBlocked({}, big)).toBeUndefined();
  });

  it('blocks a model request once the response budget is used up, not before', () => {
    const budget: Budget = { maxModelResponses: 3 };
    expect(modelRequestBlocked(budget, spent({ modelResponses: 2 }), 1_000)).toBeUndefined();
    expect(modelRequestBlocked(budget, spent({ modelResponses: 3 }), 1_000)).toBe(
      'model response budget of 3 used up',
    );
  });

  it('counts input and output tokens together and blocks at the limit, naming the count', () => {
    const budget: Budget = { maxTokens: 100 };
    const under = spent({ usage: { inputTokens: 60, outputTokens: 39 } });
    const at = spent({ usage: { inputTokens: 60, outputTokens: 40 } });
    expect(modelRequestBlocked(budget, under, 1_000)).toBeUndefined();
    expect(modelRequestBlocked(budget, at, 1_000)).toBe('token budget of 100 used up (100 tokens)');
    expect(continuationBlocked(budget, at, 1_000)).toBe('token budget of 100 used up (100 tokens)');
  });

  it('measures wall time from the turn’s start, with the host’s clock passed in', () => {
    const budget: Budget = { maxWallTimeMs: 500 };
    expect(continuationBlocked(budget, spent(), 1_499)).toBeUndefined();
    expect(continuationBlocked(budget, spent(), 1_500)).toBe('wall-time budget of 500 ms used up');
    expect(modelRequestBlocked(budget, spent(), 1_500)).toBe('wall-time budget of 500 ms used up');
  });

  it('does not stop work after a tool completes because of the response or tool-call counts', () => {
    const budget: Budget = { maxModelResponses: 1, maxToolCalls: 1 };
    expect(continuationBlocked(budget, spent({ modelResponses: 5, toolCalls: 5 }), 1_000)).toBeUndefined();
  });

  it('lets the model read the results when the tool-call limit is reached exactly', () => {
    const budget: Budget = { maxToolCalls: 2 };
    expect(modelRequestBlocked(budget, spent({ toolCalls: 2 }), 1_000)).toBeUndefined();
  });

  it('blocks a further tool call once the tool-call budget is used up', () => {
    const budget: Budget = { maxToolCalls: 2 };
    expect(toolCallBlocked(budget, spent({ toolCalls: 1 }))).toBeUndefined();
    expect(toolCallBlocked(budget, spent({ toolCalls: 2 }))).toBe('tool call budget of 2 used up');
  });

  it('reports the response budget first when several are used up', () => {
    const budget: Budget = { maxModelResponses: 1, maxTokens: 1, maxWallTimeMs: 1 };
    const all = spent({ modelResponses: 1, usage: { inputTokens: 5, outputTokens: 0 } });
    expect(modelRequestBlocked(budget, all, 10_000)).toBe('model response budget of 1 used up');
    expect(continuationBlocked(budget, all, 10_000)).toBe('token budget of 1 used up (5 tokens)');
  });

  it('a sub-agent’s spending charged to its parent counts against each of its limits', () => {
    const budget: Budget = { maxModelResponses: 3, maxToolCalls: 2, maxTokens: 100 };
    const parent = spent({ modelResponses: 1, toolCalls: 1, usage: { inputTokens: 10, outputTokens: 5 } });
    const charge = addSpent(
      { modelResponses: 1, toolCalls: 0, usage: { inputTokens: 40, outputTokens: 0 } },
      { modelResponses: 1, toolCalls: 1, usage: { inputTokens: 40, outputTokens: 5 } },
    );
    expect(charge).toEqual({ modelResponses: 2, toolCalls: 1, usage: { inputTokens: 80, outputTokens: 5 } });
    expect(modelRequestBlocked(budget, parent, 1_000)).toBeUndefined();
    chargeSpent(parent, charge);
    expect(parent).toEqual(
      spent({ modelResponses: 3, toolCalls: 2, usage: { inputTokens: 90, outputTokens: 10 } }),
    );
    expect(modelRequestBlocked(budget, parent, 1_000)).toBe('model response budget of 3 used up');
    expect(toolCallBlocked(budget, parent)).toBe('tool call budget of 2 used up');
    expect(continuationBlocked(budget, parent, 1_000)).toBe('token budget of 100 used up (100 tokens)');
  });
});

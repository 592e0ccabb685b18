import type { SubAgentSpent } from '../schema/tool-output';
import type { Budget } from '../schema/turn-config';
import { addUsage, totalTokens, type Usage } from '../schema/usage';

export interface BudgetSpent {
  modelResponses: number;
  toolCalls: number;
  usage: Usage;
  startedAt: number;
}

/**
 * Whether the turn may ask the model again. Checked before every model request; returns why not.
 * Reaching the tool-call limit exactly does not stop the model from reading the results: only a
 * call past the limit does (see `toolCallAllowed`).
 */
export function modelRequestBlocked(budget: Budget, spent: BudgetSpent, now: number): string | undefined {
  if (budget.maxModelResponses !== undefined && spent.modelResponses >= budget.maxModelResponses) {
    return `model response budget of ${budget.maxModelResponses} used up`;
  }
  return continuationBlocked(budget, spent, now);
}

/** Whether work may go on after a tool completes: the budgets time and tokens can run out of. */
export function continuationBlocked(budget: Budget, spent: BudgetSpent, now: number): string | undefined {
  const tokens = totalTokens(spent.usage);
  if (budget.maxTokens !== undefined && tokens >= budget.maxTokens) {
    return `token budget of ${budget.maxTokens} used up (${tokens} tokens)`;
  }
  if (budget.maxWallTimeMs !== undefined && now - spent.startedAt >= budget.maxWallTimeMs) {
    return `wall-time budget of ${budget.maxWallTimeMs} ms used up`;
  }
  return undefined;
}

/** Whether one more tool call may start. */
export function toolCallBlocked(budget: Budget, spent: BudgetSpent): string | undefined {
  if (budget.maxToolCalls !== undefined && spent.toolCalls >= budget.maxToolCalls) {
    return `tool call budget of ${budget.maxToolCalls} used up`;
  }
  return undefined;
}

/**
 * What a call's sub-agents spent, charged to the turn that ran them (the reducer does, with the
 * call's output): its counters grow by it, so its budget checks, its view and its result count it.
 */
export function chargeSpent(spent: BudgetSpent, charge: SubAgentSpent): void {
  spent.modelResponses += charge.modelResponses;
  spent.toolCalls += charge.toolCalls;
  spent.usage = addUsage(spent.usage, charge.usage);
}

/** Two spendings together (the sub-agent turns one attempt ran). */
export function addSpent(a: SubAgentSpent, b: SubAgentSpent): SubAgentSpent {
  return {
    modelResponses: a.modelResponses + b.modelResponses,
    toolCalls: a.toolCalls + b.toolCalls,
    usage: addUsage(a.usage, b.usage),
  };
}

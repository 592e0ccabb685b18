import type { Budget } from '../schema/turn-config';
import { totalTokens, type Usage } from '../schema/usage';

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

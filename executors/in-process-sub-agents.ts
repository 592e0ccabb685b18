import {
  type BudgetLeft,
  budgetSlice,
  NonRetryableToolError,
  type SubAgents,
  type TurnResult,
} from '../core';
import type { RunTurnArgs } from './in-process-executor-options';

/** What of the executor runs sub-agents (named here so that this file need not import it). */
interface TurnRunner {
  /** What a turn running here has left of its budget (undefined: not running here). */
  budgetLeft(turnId: string): BudgetLeft | undefined;
  finishedResult(turnId: string): Promise<TurnResult | undefined>;
  journalLength(turnId: string): Promise<number>;
  resumeTurn(
    args: { turnId: string; takeOver?: boolean },
    options: { signal: AbortSignal },
  ): Promise<TurnResult>;
  runTurn(args: RunTurnArgs, options: { signal: AbortSignal }): Promise<TurnResult>;
}

/**
 * Sub-agents in process: each a turn of the same executor (its own journal), cancelled with the
 * calling attempt. A turn of that id that finished is its answer; one in the journal that did not
 * (the host crashed under it) is resumed, not run again.
 */
export function inProcessSubAgents(executor: TurnRunner): SubAgents {
  return {
    async run({ turnId, parentTurnId, parentToolCallId, input, budget, output }, signal) {
      const finished = await executor.finishedResult(turnId);
      if (finished) return finished;
      if ((await executor.journalLength(turnId)) > 0)
        return executor.resumeTurn({ turnId, takeOver: true }, { signal });
      const slice = budgetSlice(budget, executor.budgetLeft(parentTurnId));
      if (typeof slice === 'string')
        throw new NonRetryableToolError(`the sub-agent was not started: ${slice}`);
      const parent = { turnId: parentTurnId, toolCallId: parentToolCallId };
      return executor.runTurn(
        { turnId, input, budget: slice, parent, ...(output ? { output } : {}) },
        { signal },
      );
    },
  };
}

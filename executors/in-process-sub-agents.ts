import { type SubAgents, subAgentStart, type TurnEngine, type TurnResult, type TurnStateView } from '../core';
import type { RunTurnArgs } from './in-process-executor-options';

/** What of the executor runs sub-agents (named here so that this file need not import it). */
interface TurnRunner {
  /** What a turn running here has left of its budget and allows (undefined: not running here). */
  stateOf(turnId: string): Pick<TurnStateView, 'budgetLeft' | 'grants'> | undefined;
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
      // Its approval rules are the executor's, as its parent's are: only the budget and grants differ.
      const { budget: slice, grants } = subAgentStart(budget, executor.stateOf(parentTurnId));
      const parent = { turnId: parentTurnId, toolCallId: parentToolCallId };
      return executor.runTurn(
        { turnId, input, budget: slice, parent, ...(grants && { grants }), ...(output ? { output } : {}) },
        { signal },
      );
    },
  };
}

/**
 * The sub-agent turns (any depth) of `turnId` running here that hold grant `grantId` (they took it
 * from their parent when they started): a revocation on the parent ends it there too. Sub-agents
 * whose ids are digests (`subAgentTurnId`, for ids too long) are not found.
 */
export function subAgentsHolding(
  engines: ReadonlyMap<string, TurnEngine>,
  turnId: string,
  grantId: string,
): string[] {
  return [...engines]
    .filter(
      ([id, engine]) =>
        id.startsWith(`${turnId}/agent/`) && engine.view.grants?.some((g) => g.grantId === grantId),
    )
    .map(([id]) => id);
}

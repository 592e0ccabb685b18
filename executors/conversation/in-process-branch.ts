import {
  type BranchFork,
  branchFork,
  branchOrigin,
  branchTaken,
  type ConversationAction,
  type ConversationOrigin,
  type ConversationState,
  endedTurns,
  type ForkPoint,
  forkedTurnOf,
  parsedOrThrow,
  type ToolOutput,
  type TurnResult,
  threadIdSchema,
  unknownConversation,
} from '../../core';

/** The new conversation of a branch, and where it goes from (see `ConversationClient.branch`). */
export interface BranchTo {
  conversationId: string;
  /** Its turns come after the source's turn `afterTurn` (0: before any of them). */
  afterTurn: number;
  /** Its turn 1 forks the source's turn `afterTurn + 1` at `at` (see `BranchOptions.fork`). */
  fork?: { at: ForkPoint; outputs?: Readonly<Record<string, ToolOutput>> };
}

/**
 * A branch in process: the source's state read, the new conversation saved with its origin and no
 * turn (its first message begins it, session-start hooks and all). Refused when `afterTurn` is not a
 * turn of the source that ended, or the id is taken.
 */
export async function startBranchHere({
  from,
  to: { conversationId, afterTurn, fork },
  hold,
  change,
  finishedResult,
}: {
  from: string;
  to: BranchTo;
  finishedResult: (turnId: string) => Promise<TurnResult | undefined>;
  hold: (conversationId: string) => Promise<{ state: ConversationState; version: number }>;
  change: (
    conversationId: string,
    apply: (state: ConversationState, version: number) => { actions: ConversationAction[] },
  ) => Promise<unknown>;
}): Promise<{ conversationId: string; origin: ConversationOrigin }> {
  parsedOrThrow(threadIdSchema, conversationId, 'conversationId');
  const { state: source, version } = await hold(from);
  // Held at version 0, it was only looked at: never begun.
  if (version === 0) throw unknownConversation(from);
  const ended = { ...source, endedTurns: endedTurns(source) };
  const origin = branchOrigin({ source: ended, afterTurn });
  let firstTurnFork: BranchFork | undefined;
  if (fork) {
    const forked = forkedTurnOf({ source: ended, afterTurn });
    const result = await finishedResult(forked);
    if (!result) throw new Error(`turn ${forked} has not finished in this executor's journal`);
    firstTurnFork = branchFork({ from: forked, source: result, ...fork });
  }
  await change(conversationId, (draft, at) => {
    if (at !== 0) throw branchTaken(conversationId);
    draft.origin = origin;
    if (firstTurnFork) draft.firstTurnFork = firstTurnFork;
    return { actions: [] };
  });
  return { conversationId, origin };
}

/**
 * A branch that no message has reached yet: its session begins with its first message (the
 * session-start hooks run then, as for a new conversation), and closed before, it ends none.
 */
export function branchNotBegun(state: ConversationState): boolean {
  return state.origin !== undefined && state.receipts.length === 0 && state.turnCount === 0 && !state.closed;
}

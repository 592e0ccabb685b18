import { type Client, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import {
  conversationStateQuery,
  conversationWorkflowId,
  conversationWorkflowInputSchema,
  conversationWorkflowType,
  type TurnTemplate,
} from '../contract/conversation-workflow';
import {
  type BranchFork,
  branchFork,
  branchOrigin,
  branchTaken,
  type ConversationOrigin,
  DurableTurnsError,
  endedTurns,
  type ForkPoint,
  forkedTurnOf,
  formatIssues,
  type ToolOutput,
  threadIdSchema,
  unknownConversation,
} from '../core';
import type { ConversationMemo } from './conversation-list';
import { TurnHandle } from './turn-handle';

/** Where a branch goes from, and what the new conversation is (see `ConversationClient.branch`). */
export interface BranchOptions {
  /** The new conversation's id. */
  conversationId: string;
  /** Its turns come after the source's turn `afterTurn` (1 for its first; 0: before any of them). */
  afterTurn: number;
  /** How its turns run, as a first `send`'s `turn` says. */
  turn: TurnTemplate;
  /**
   * Its turn 1 forks the source's turn `afterTurn + 1` at `at` (see `forkPrefix`): it begins with that
   * turn's record up to there (nothing of it runs again), its first message the user's next word.
   */
  fork?: { at: ForkPoint; outputs?: Readonly<Record<string, ToolOutput>> };
  continueAsNewAfterEvents?: number;
}

/**
 * Starts a branch of conversation `from` (its workflow, with no turn yet): the source's turns up to
 * `afterTurn`, and whatever the source itself branched from, come before the branch's own, read by
 * reference (see `ConversationOrigin`). The source must have ended that turn; it may go on.
 */
export async function startBranch({
  client,
  taskQueue,
  from,
  options,
}: {
  client: Client;
  taskQueue: string;
  from: string;
  options: BranchOptions;
}): Promise<{ conversationId: string; origin: ConversationOrigin }> {
  const { conversationId, afterTurn } = options;
  const id = threadIdSchema.safeParse(conversationId);
  if (!id.success) throw new Error(formatIssues(id.error, { root: 'conversationId' }));
  const source = await client.workflow
    .getHandle(conversationWorkflowId(from))
    .query(conversationStateQuery)
    .catch((error: unknown) => {
      if (error instanceof WorkflowNotFoundError) throw unknownConversation(from);
      throw error;
    });
  // The running turn has not ended: a branch cannot go after it.
  const ended = { ...source, endedTurns: endedTurns(source) };
  const origin = branchOrigin({ source: ended, afterTurn });
  const fork = options.fork && (await forkOf({ client, source: ended, afterTurn, ...options.fork }));
  // Checked here, before anything starts: a workflow whose input it cannot read would fail each task.
  const input = conversationWorkflowInputSchema.safeParse({
    conversationId,
    turn: options.turn,
    origin,
    ...(fork ? { fork } : {}),
    ...(options.continueAsNewAfterEvents
      ? { continueAsNewAfterEvents: options.continueAsNewAfterEvents }
      : {}),
  });
  if (!input.success) throw new Error(`invalid branch: ${formatIssues(input.error)}`);
  const chars = JSON.stringify(input.data).length;
  if (chars > maxStartChars)
    throw new DurableTurnsError(
      `the branch's start (${chars} characters, its fork's record included) is more than a workflow input carries (2 MB): fork the turn at an earlier point`,
      { code: 'invalid-branch-point' },
    );
  const memo: ConversationMemo = { startedAt: new Date().toISOString() };
  try {
    await client.workflow.start(conversationWorkflowType, {
      workflowId: conversationWorkflowId(conversationId),
      taskQueue,
      args: [input.data],
      memo: { ...memo },
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) throw branchTaken(conversationId);
    throw error;
  }
  return { conversationId, origin };
}

/** The fork a branch's turn 1 begins with: the source's next turn (ended), read from its workflow. */
async function forkOf({
  client,
  source,
  afterTurn,
  at,
  outputs,
}: {
  client: Client;
  source: { conversationId: string; endedTurns: number };
  afterTurn: number;
  at: ForkPoint;
  outputs?: Readonly<Record<string, ToolOutput>>;
}): Promise<BranchFork> {
  const from = forkedTurnOf({ source, afterTurn });
  const result = await new TurnHandle(from, client.workflow.getHandle(from)).result();
  return branchFork({ from, source: result, at, ...(outputs ? { outputs } : {}) });
}

/** The most characters a branch's start may have (the server refuses a payload over 2 MiB). */
const maxStartChars = 1_900_000;

import { z } from 'zod';
import type { ApprovalRequest } from '../engine/engine-types';
import type { TurnOutcome } from '../engine/turn-outcome';
import type { Message } from '../schema/messages';
import type { Budget, OutputConfig } from '../schema/turn-config';
import { stableHash } from './stable-hash';

/**
 * A call of a sub-agent (at any depth below a turn) that waits for a person's decision, as its
 * parent shows it: where it waits (`turnId`, whose approve answers it) and which of the parent's own
 * calls runs that sub-agent (`agentCallId`). `TurnStateView.subAgentApprovals` lists them.
 */
export interface SubAgentApproval extends Omit<ApprovalRequest, 'inputSchema'> {
  turnId: string;
  agentCallId: string;
  /** `input` is the start of the arguments' JSON (they were large): the call's own turn has them whole. */
  inputCut?: boolean;
}

/** One sub-agent turn as a tool asks its host for it (see `agentTool`). */
export interface SubAgentRun {
  /** Stable for the call (`subAgentTurnId`): a retried or recovered attempt finds the same turn. */
  turnId: string;
  /** The turn whose call runs it: its budget left bounds the sub-agent's (see `budgetSlice`). */
  parentTurnId: string;
  /** The parent's call that runs it: the parent shows its approvals under that call. */
  parentToolCallId: string;
  input: Message[];
  /** The model, by name: on Temporal a model of the worker; in process the executor's own is used. */
  model?: string;
  /** Its slice of the parent's budget. */
  budget?: Budget;
  output?: OutputConfig;
}

/**
 * How a host runs a sub-agent for a tool (`ToolContext.agents`): a turn of its own, with its own
 * journal, that a cancel of the calling attempt (`signal`) cancels. In process, a turn of the same
 * executor; on Temporal, a turn workflow on the worker's task queue. A turn of that id that already
 * ran (a retry, a recovery) is not run again: its result is the answer.
 */
export interface SubAgents {
  run(run: SubAgentRun, signal: AbortSignal): Promise<SubAgentAnswer>;
}

/**
 * How a sub-agent's turn ended, as its caller needs it, and what it spent (its model responses,
 * tool calls and tokens, its own sub-agents' included): the calling turn is charged that.
 */
export type SubAgentAnswer = Pick<
  TurnOutcome,
  'status' | 'reason' | 'text' | 'output' | 'usage' | 'modelResponses' | 'toolCalls'
>;

/** How deep sub-agents nest: a sub-agent's sub-agent is 2 deep. */
export const maxSubAgentDepth = 3;

/**
 * The sub-agent turn of a call: `<parent>/agent/<call>`, or, when that is no valid turn id, a digest
 * of the two that still says how deep it is (`agent<depth>-<digest>`).
 */
export function subAgentTurnId(turnId: string, toolCallId: string): string {
  const id = `${turnId}/agent/${toolCallId}`;
  if (/^[A-Za-z0-9\-_.:/@+=#~]{1,256}$/.test(id)) return id;
  return `agent${subAgentDepth(turnId) + 1}-${stableHash([turnId, toolCallId])}`;
}

/** How deep a turn is as a sub-agent (0: not one). */
export function subAgentDepth(turnId: string): number {
  const digested = /^agent(\d+)-/.exec(turnId);
  return (digested ? Number(digested[1]) : 0) + turnId.split('/agent/').length - 1;
}

/** What a sub-agent tool takes by default: the task, in words. */
export const agentTaskSchema = z.object({ task: z.string().min(1).describe('What the agent is to do') });

/** What a turn has left of its budget (`TurnStateView.budgetLeft`). */
export type BudgetLeft = Partial<Record<'modelResponses' | 'toolCalls' | 'tokens' | 'wallTimeMs', number>>;

/**
 * A sub-agent's budget: the agent tool's own, within what its parent has left when it starts (its
 * wall time left is the parent's deadline passed down). A string when the parent has nothing left of
 * something: the sub-agent does not start.
 */
export function budgetSlice(own: Budget | undefined, left: BudgetLeft | undefined): Budget | string {
  const slice: Budget = { ...own };
  const pairs = [
    ['maxModelResponses', 'modelResponses'],
    ['maxToolCalls', 'toolCalls'],
    ['maxTokens', 'tokens'],
    ['maxWallTimeMs', 'wallTimeMs'],
  ] as const;
  for (const [field, leftField] of pairs) {
    const parentLeft = left?.[leftField];
    if (parentLeft === undefined) continue;
    if (parentLeft <= 0) return `its parent's budget has no ${leftField} left`;
    slice[field] = Math.min(slice[field] ?? parentLeft, parentLeft);
  }
  return slice;
}

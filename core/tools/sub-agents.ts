import { z } from 'zod';
import type { TurnOutcome } from '../engine/turn-outcome';
import type { Message } from '../schema/messages';
import type { Budget, OutputConfig } from '../schema/turn-config';
import { stableHash } from './stable-hash';

/** One sub-agent turn as a tool asks its host for it (see `agentTool`). */
export interface SubAgentRun {
  /** Stable for the call (`subAgentTurnId`): a retried or recovered attempt finds the same turn. */
  turnId: string;
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

/** How a sub-agent's turn ended, as its caller needs it. */
export type SubAgentAnswer = Pick<TurnOutcome, 'status' | 'reason' | 'text' | 'output'>;

/** The sub-agent turn of a call: `<parent>/agent/<call>`, or a digest of the two when that is no valid turn id. */
export function subAgentTurnId(turnId: string, toolCallId: string): string {
  const id = `${turnId}/agent/${toolCallId}`;
  return /^[A-Za-z0-9\-_.:/@+=#~]{1,256}$/.test(id) ? id : `agent-${stableHash([turnId, toolCallId])}`;
}

/** What a sub-agent tool takes by default: the task, in words. */
export const agentTaskSchema = z.object({ task: z.string().min(1).describe('What the agent is to do') });

import type { z } from 'zod';
import type { Message } from '../schema/messages';
import { outputConfigOf, type StructuredOutputInput } from '../schema/output-schema';
import type { Budget } from '../schema/turn-config';
import { type AnyTool, defineTool } from './define-tool';
import { NonRetryableToolError } from './run-tool-attempt';
import { agentTaskSchema, maxSubAgentDepth, subAgentDepth, subAgentTurnId } from './sub-agents';

export interface AgentToolOptions {
  name: string;
  description: string;
  /** The sub-agent's instructions: its turns begin with them as a system message. */
  instructions?: string;
  /** The model, by name (on Temporal, a model of the worker: required there; in process the executor's own). */
  model?: string;
  /** Its slice of the budget: each call's sub-agent turn runs under it. */
  budget?: Budget;
  /** A structured answer: the sub-agent's checked value is the call's output (else its final text). */
  output?: StructuredOutputInput;
  /** Runs in the background (see `ToolDefinition.background`): the parent goes on while it works. */
  background?: boolean;
  /** How long one sub-agent turn may take (default an hour). */
  timeoutMs?: number;
}

/**
 * An agent as a tool of another: each call runs a turn of its own (its own journal, its own calls
 * and approvals) through the host's `ToolContext.agents` — in process, a turn of the same
 * executor; on Temporal, a turn workflow on the worker's task queue — whose answer is the call's
 * output. The turn's id is the call's (`subAgentTurnId`), so a retried or recovered attempt finds
 * the same turn instead of running another; a cancel of the parent's call cancels it.
 */
export function agentTool(options: AgentToolOptions): AnyTool {
  const output = options.output ? outputConfigOf(options.output) : undefined;
  return defineTool({
    name: options.name,
    description: options.description,
    input: agentTaskSchema,
    // The sub-agent's turn id is the call's: running the attempt again attaches to the same turn.
    retrySafe: true,
    concurrencySafe: true,
    timeoutMs: options.timeoutMs ?? 60 * 60_000,
    ...(options.background ? { background: true } : {}),
    execute: async ({ task }: z.infer<typeof agentTaskSchema>, ctx) => {
      if (!ctx.agents)
        throw new NonRetryableToolError(`${options.name} is an agent, and this host runs no sub-agents`);
      // A sub-agent has its parent's tools, its own agent tool among them: the nesting is bounded.
      if (subAgentDepth(ctx.turnId) >= maxSubAgentDepth)
        throw new NonRetryableToolError(
          `${options.name} was not started: sub-agents nest at most ${maxSubAgentDepth} deep, and this turn is a sub-agent that deep`,
        );
      const input: Message[] = [
        ...(options.instructions ? [{ role: 'system' as const, content: options.instructions }] : []),
        { role: 'user', content: task },
      ];
      const turnId = subAgentTurnId(ctx.turnId, ctx.toolCallId);
      const result = await ctx.agents.run(
        {
          turnId,
          parentTurnId: ctx.turnId,
          parentToolCallId: ctx.toolCallId,
          input,
          ...(options.model ? { model: options.model } : {}),
          ...(options.budget ? { budget: options.budget } : {}),
          ...(output ? { output } : {}),
        },
        ctx.signal,
      );
      // It finished its work: that stands, even if the parent's cancel came meanwhile.
      if (result.status === 'completed') return result.output !== undefined ? result.output : result.text;
      // Stopped by the parent's cancel: the call did not finish (the host reports it interrupted).
      if (ctx.signal.aborted) throw ctx.signal.reason;
      throw new NonRetryableToolError(
        `the sub-agent ${options.name} (turn ${turnId}) ended ${result.status}${result.reason ? `: ${result.reason}` : ''}`,
      );
    },
  });
}

import type { Context } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError, type WorkflowHandle } from '@temporalio/client';
import {
  type TurnWorkflowResult,
  turnWorkflowInputSchema,
  turnWorkflowType,
} from '../contract/turn-workflow';
import { NonRetryableToolError, type SubAgents, turnConfigOf } from '../core';

/**
 * Sub-agents on Temporal: each a turn workflow of its own (its own history, its own approvals,
 * answered as any turn's), on the task queue of the turn that calls it. Its workflow id is the
 * call's (`subAgentTurnId`): a retried or recovered attempt attaches to the same turn. A cancel
 * of the calling attempt (the parent's cancel, seen through the attempt's heartbeats) cancels it,
 * and the answer is its cancelled result.
 */
export function temporalSubAgents(ctx: Context): SubAgents {
  return {
    async run({ turnId, input, model, budget, output }, signal) {
      if (!model)
        throw new NonRetryableToolError(
          'on Temporal a sub-agent names its model (agentTool({ model })): a model of the worker, by name',
        );
      const workflow = ctx.client.workflow;
      const args = turnWorkflowInputSchema.parse({
        turnId,
        input,
        model,
        config: turnConfigOf({ ...(budget ? { budget } : {}), ...(output ? { output } : {}) }),
      });
      // The calling turn's queue: a call pinned to a session worker runs on that worker's own queue.
      const taskQueue = ctx.info.taskQueue.replace(/\.sessions\.[^.]+$/, '');
      let handle: WorkflowHandle;
      try {
        handle = await workflow.start(turnWorkflowType, {
          workflowId: turnId,
          taskQueue,
          args: [args],
          workflowIdConflictPolicy: 'USE_EXISTING',
        });
      } catch (error) {
        // It ran already (this attempt is a retry): its result is the answer.
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
        handle = workflow.getHandle(turnId);
      }
      const cancel = () => void handle.cancel().catch(() => {});
      signal.addEventListener('abort', cancel, { once: true });
      try {
        // The summary says how it ended and what it answered (its transcript stays in its history).
        return (await handle.result()) as TurnWorkflowResult;
      } finally {
        signal.removeEventListener('abort', cancel);
      }
    },
  };
}

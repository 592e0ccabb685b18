import type { Context } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError, type WorkflowHandle } from '@temporalio/client';
import {
  stateQuery,
  type TurnWorkflowResult,
  turnWorkflowInputSchema,
  turnWorkflowType,
} from '../contract/turn-workflow';
import { NonRetryableToolError, type SubAgents, subAgentStart, turnConfigOf } from '../core';

/**
 * Sub-agents on Temporal: each a turn workflow of its own (its own history, its own approvals,
 * answered as any turn's), on the task queue of the turn that calls it. Its workflow id is the
 * call's (`subAgentTurnId`): a retried or recovered attempt attaches to the same turn. A cancel
 * of the calling attempt (the parent's cancel, seen through the attempt's heartbeats) cancels it,
 * and the answer is its cancelled result.
 */
export function temporalSubAgents(ctx: Context): SubAgents {
  return {
    async run({ turnId, parentTurnId, parentToolCallId, input, model, budget, output }, signal) {
      if (!model)
        throw new NonRetryableToolError(
          'on Temporal a sub-agent names its model (agentTool({ model })): a model of the worker, by name',
        );
      const workflow = ctx.client.workflow;
      // What it takes from its parent (budget slice, grants, approval rules): read from its state.
      const parent = await workflow.getHandle(parentTurnId).query(stateQuery);
      const { budget: slice, approvals, grants } = subAgentStart(budget, parent);
      const args = turnWorkflowInputSchema.parse({
        turnId,
        parent: { turnId: parentTurnId, toolCallId: parentToolCallId },
        input,
        model,
        // Its tools' lost hosts are noticed as soon as its parent's are (the calling attempt's timeout).
        ...(ctx.info.heartbeatTimeoutMs && { timing: { heartbeatTimeoutMs: ctx.info.heartbeatTimeoutMs } }),
        config: turnConfigOf({
          budget: slice,
          ...(output ? { output } : {}),
          approvals: { ...approvals, ...(grants && { grants }) },
        }),
      });
      // The calling turn's queue: a call pinned to a session worker runs on that worker's own queue.
      const taskQueue = ctx.info.taskQueue.replace(/\.sessions\.[^.]+$/, '');
      let handle: WorkflowHandle;
      try {
        handle = await workflow.start(turnWorkflowType, {
          workflowId: turnId,
          taskQueue,
          args: [args],
          // Running: this attempt attaches to it. Closed: it is not run again (its result is the answer).
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
        });
      } catch (error) {
        // It ran already (this attempt is a retry): its result is the answer.
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
        handle = workflow.getHandle(turnId);
      }
      // The parent's cancel cancels it, and so does the call's own timeout (as in process): the call
      // is over. An attempt stopped otherwise (its worker shutting down, lost) is run again, and
      // attaches to the sub-agent still at work.
      const cancel = () => {
        const stopped = ctx.cancellationDetails;
        const callTimedOut = !ctx.cancellationSignal.aborted || stopped?.timedOut;
        if (stopped?.cancelRequested || callTimedOut) void handle.cancel().catch(() => {});
      };
      signal.addEventListener('abort', cancel, { once: true });
      if (signal.aborted) cancel();
      try {
        // The summary says how it ended, what it answered and what it spent (its responses, calls
        // and tokens, its own sub-agents' included: its parent is charged that); its transcript
        // stays in its history.
        return (await handle.result()) as TurnWorkflowResult;
      } finally {
        signal.removeEventListener('abort', cancel);
      }
    },
  };
}

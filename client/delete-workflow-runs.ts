import { type Client, WorkflowNotFoundError } from '@temporalio/client';

interface FirstEvent {
  workflowExecutionStartedEventAttributes?: { continuedExecutionRunId?: string | null } | null;
}

/**
 * Deletes every run of a workflow id (the runs a continue-as-new chain left), newest first, and
 * returns how many there were (0 for an id with none). Each run names the one it continued from in
 * its first event, so the chain is walked from the server's own record, not from Visibility.
 * A run still running is terminated by the delete: callers end it first.
 */
export async function deleteWorkflowRuns(client: Client, workflowId: string): Promise<number> {
  const { namespace } = client.options;
  let runId: string | undefined;
  try {
    runId = (await client.workflow.getHandle(workflowId).describe()).runId;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return 0;
    throw error;
  }
  let deleted = 0;
  while (runId) {
    const first: { history?: { events?: FirstEvent[] | null } | null } =
      await client.workflowService.getWorkflowExecutionHistory({
        namespace,
        execution: { workflowId, runId },
        maximumPageSize: 1,
      });
    const started: { continuedExecutionRunId?: string | null } | null | undefined =
      first.history?.events?.[0]?.workflowExecutionStartedEventAttributes;
    await client.workflowService.deleteWorkflowExecution({
      namespace,
      workflowExecution: { workflowId, runId },
    });
    deleted += 1;
    runId = started?.continuedExecutionRunId || undefined;
  }
  return deleted;
}

/**
 * Resolves once the server no longer knows the workflow id (its deletion is carried out after the
 * request returns), so a new workflow may take it; gives up after `timeoutMs`.
 */
export async function waitUntilGone(client: Client, workflowId: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = 10; ; pause = Math.min(pause * 2, 1_000)) {
    try {
      await client.workflow.getHandle(workflowId).describe();
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return;
      throw error;
    }
    if (Date.now() > deadline)
      throw new Error(`workflow ${workflowId} was deleted but the server still has it after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

import { type Client, isGrpcServiceError, WorkflowNotFoundError } from '@temporalio/client';

/** gRPC's NOT_FOUND status code. */
const grpcNotFound = 5;

interface FirstEvent {
  workflowExecutionStartedEventAttributes?: { continuedExecutionRunId?: string | null } | null;
}

/** The server has no such run (deleted, or purged by the namespace's retention). */
function notFound(error: unknown): boolean {
  return error instanceof WorkflowNotFoundError || (isGrpcServiceError(error) && error.code === grpcNotFound);
}

/** Whether the workflow id's run was started by the workflow `parentId` (a standalone one was not). */
export async function childOf(client: Client, workflowId: string, parentId: string): Promise<boolean> {
  try {
    const { raw } = await client.workflow.getHandle(workflowId).describe();
    return raw.workflowExecutionInfo?.parentExecution?.workflowId === parentId;
  } catch (error) {
    if (notFound(error)) return false;
    throw error;
  }
}

/**
 * Deletes every run of a workflow id (the runs a continue-as-new chain left), oldest first, and
 * returns how many it deleted (0 for an id with none). Each run names the one it continued from in
 * its first event, so the chain is read from the server's own record, not from Visibility; a run
 * already gone (retention purges old runs first) ends the chain. Oldest first, so a delete cut
 * short leaves the newest run, which a second delete finds again. A run still running is
 * terminated by the delete: callers end it first.
 */
export async function deleteWorkflowRuns(client: Client, workflowId: string): Promise<number> {
  const { namespace } = client.options;
  let runId: string | undefined;
  try {
    runId = (await client.workflow.getHandle(workflowId).describe()).runId;
  } catch (error) {
    if (notFound(error)) return 0;
    throw error;
  }
  const runs: string[] = [];
  while (runId) {
    runs.unshift(runId);
    let first: { history?: { events?: FirstEvent[] | null } | null };
    try {
      first = await client.workflowService.getWorkflowExecutionHistory({
        namespace,
        execution: { workflowId, runId },
        maximumPageSize: 1,
      });
    } catch (error) {
      if (notFound(error)) break;
      throw error;
    }
    const started = first.history?.events?.[0]?.workflowExecutionStartedEventAttributes;
    runId = started?.continuedExecutionRunId || undefined;
  }
  let deleted = 0;
  for (const run of runs) {
    try {
      await client.workflowService.deleteWorkflowExecution({
        namespace,
        workflowExecution: { workflowId, runId: run },
      });
      deleted += 1;
    } catch (error) {
      if (!notFound(error)) throw error;
    }
  }
  return deleted;
}

/**
 * Resolves once the server no longer knows the workflow id (its deletion is carried out after the
 * request returns, once the shard's queues have checkpointed past the run's close), so a new
 * workflow may take it; gives up after `timeoutMs`.
 */
export async function waitUntilGone(client: Client, workflowId: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = 10; ; pause = Math.min(pause * 2, 1_000)) {
    try {
      await client.workflow.getHandle(workflowId).describe();
    } catch (error) {
      if (notFound(error)) return;
      throw error;
    }
    if (Date.now() > deadline)
      throw new Error(`workflow ${workflowId} was deleted but the server still has it after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

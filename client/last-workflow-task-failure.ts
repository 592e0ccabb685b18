import type { Client } from '@temporalio/client';

/** How far back from the newest event to look: a failing task repeats every few seconds. */
const eventsToRead = 20;
const readDeadlineMs = 5_000;

/**
 * Why the workflow's workers fail its task, when they do: the message of its newest workflow task
 * failure, if no task completed since. A query a worker cannot answer times out saying only that;
 * this names the cause (a payload encrypted with a key the worker lacks, code that does not
 * replay). Undefined when the tasks are fine, or the history cannot be read.
 */
export async function lastWorkflowTaskFailure({
  client,
  workflowId,
}: {
  /** A `Client` or a `WorkflowClient`: its service and namespace. */
  client: Pick<Client, 'workflowService' | 'connection'> & { options: { namespace: string } };
  workflowId: string;
}): Promise<string | undefined> {
  try {
    // Its own deadline: it is asked once the caller's (a query's) has run out.
    const { history } = await client.connection.withDeadline(Date.now() + readDeadlineMs, () =>
      client.workflowService.getWorkflowExecutionHistoryReverse({
        namespace: client.options.namespace,
        execution: { workflowId },
        maximumPageSize: eventsToRead,
      }),
    );
    for (const event of history?.events ?? []) {
      if (event.workflowTaskCompletedEventAttributes) return undefined;
      const failure = event.workflowTaskFailedEventAttributes?.failure;
      if (failure) return failure.message ?? undefined;
    }
  } catch {
    // The history is a hint for a message about another failure: that failure is reported as it is.
  }
  return undefined;
}

import type { Client } from '@temporalio/client';

/** How far back from the newest event to look: a failing task repeats every few seconds. */
const eventsToRead = 20;

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
  client: Client;
  workflowId: string;
}): Promise<string | undefined> {
  try {
    const { history } = await client.workflowService.getWorkflowExecutionHistoryReverse({
      namespace: client.options.namespace,
      execution: { workflowId },
      maximumPageSize: eventsToRead,
    });
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

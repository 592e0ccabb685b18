/** Reading a workflow history's events, for the tests and the benchmarks alike. */
import { temporal } from '@temporalio/proto';

export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The size of an event as the server stores it (protobuf encoding). */
export function eventBytes(event: HistoryEvent): number {
  return temporal.api.history.v1.HistoryEvent.encode(event).finish().length;
}

/**
 * A workflow task's own bookkeeping (scheduled, started, completed, timed out, failed): no content,
 * and how many a step of a turn takes depends on timing, not on the turn.
 */
export function isWorkflowTaskEvent(event: HistoryEvent): boolean {
  return Boolean(
    event.workflowTaskScheduledEventAttributes ||
      event.workflowTaskStartedEventAttributes ||
      event.workflowTaskCompletedEventAttributes ||
      event.workflowTaskTimedOutEventAttributes ||
      event.workflowTaskFailedEventAttributes,
  );
}

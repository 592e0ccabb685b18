/**
 * Where the time of a workflow run went, read from its history: how long workflow tasks and
 * activity tasks waited to be picked up and ran, how many updates there were, and the gap between
 * consecutive activities of one type (per-call cadence of a sequential chain).
 */
import { temporal } from '@temporalio/proto';
import { eventBytes, type HistoryEvent } from '../test/support/history-events';
import { round, summarize } from './measure';

export { eventBytes, type HistoryEvent, isWorkflowTaskEvent } from '../test/support/history-events';

const EventType = temporal.api.enums.v1.EventType;

export function eventTimeMs(event: HistoryEvent | undefined): number {
  const t = event?.eventTime;
  return t ? Number(t.seconds ?? 0) * 1_000 + (t.nanos ?? 0) / 1e6 : Number.NaN;
}

const median = (values: number[]) => round(summarize(values).medianMs);

export function historyProfile(events: readonly HistoryEvent[], activityType = 'runTool') {
  const byId = new Map<number, HistoryEvent>();
  for (const e of events) byId.set(Number(e.eventId ?? 0), e);
  const at = (id: unknown) => byId.get(Number(id ?? 0));
  const wftQueue: number[] = [];
  const wftRun: number[] = [];
  const activityQueue = new Map<string, number[]>();
  const activityRun = new Map<string, number[]>();
  const schedules: number[] = [];
  let updates = 0;
  const push = (map: Map<string, number[]>, key: string, value: number) =>
    map.set(key, [...(map.get(key) ?? []), value]);
  for (const e of events) {
    switch (e.eventType) {
      case EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED: {
        const scheduled = at(e.workflowTaskStartedEventAttributes?.scheduledEventId);
        wftQueue.push(eventTimeMs(e) - eventTimeMs(scheduled));
        break;
      }
      case EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED: {
        const started = at(e.workflowTaskCompletedEventAttributes?.startedEventId);
        wftRun.push(eventTimeMs(e) - eventTimeMs(started));
        break;
      }
      case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
        if (e.activityTaskScheduledEventAttributes?.activityType?.name === activityType)
          schedules.push(eventTimeMs(e));
        break;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED: {
        const attrs = e.activityTaskCompletedEventAttributes;
        const scheduled = at(attrs?.scheduledEventId);
        const started = at(attrs?.startedEventId);
        const type = scheduled?.activityTaskScheduledEventAttributes?.activityType?.name ?? '?';
        push(activityQueue, type, eventTimeMs(started) - eventTimeMs(scheduled));
        push(activityRun, type, eventTimeMs(e) - eventTimeMs(started));
        break;
      }
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
        updates += 1;
        break;
      default:
        break;
    }
  }
  const gaps = schedules.slice(1).map((t, i) => t - schedules[i]!);
  return {
    events: events.length,
    workflowTasks: wftRun.length,
    updates,
    /** Medians, ms. */
    workflowTaskQueueMs: median(wftQueue),
    workflowTaskRunMs: median(wftRun),
    activities: Object.fromEntries(
      [...activityQueue.keys()].map((type) => [
        type,
        {
          count: activityQueue.get(type)?.length ?? 0,
          queueMs: median(activityQueue.get(type) ?? []),
          runMs: median(activityRun.get(type) ?? []),
        },
      ]),
    ),
    /** Median gap between consecutive `activityType` schedules (a sequential chain's per-call cadence). */
    scheduleGapMs: gaps.length > 0 ? median(gaps) : null,
    wallMs: round(eventTimeMs(events.at(-1)) - eventTimeMs(events[0])),
  };
}

/** Events and bytes of a slice of history, by event type (EVENT_TYPE_ prefix dropped). */
export function byEventType(
  events: readonly HistoryEvent[],
): Record<string, { count: number; bytes: number }> {
  const out: Record<string, { count: number; bytes: number }> = {};
  for (const e of events) {
    const name = (EventType[e.eventType ?? 0] ?? String(e.eventType)).replace(/^EVENT_TYPE_/, '');
    const entry = out[name] ?? { count: 0, bytes: 0 };
    entry.count += 1;
    entry.bytes += eventBytes(e);
    out[name] = entry;
  }
  return out;
}

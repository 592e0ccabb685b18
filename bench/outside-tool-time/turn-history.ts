/**
 * What one turn's workflow history says, the same way for both sides: how long its tool phase
 * was (the union of each tool activity's ActivityTaskScheduled → ActivityTaskCompleted), how
 * long its model activities took and waited to start, how many workflow tasks it ran, and how
 * many events and bytes it stored.
 */
import { temporal } from '@temporalio/proto';
import { byEventType, eventBytes, type HistoryEvent } from '../history-profile';
import { eventTimeMs } from '../temporal-env';

const EventType = temporal.api.enums.v1.EventType;

export interface ActivityTypes {
  /** Activity types that are tool calls (ours: runTool; the peer's: each tool's own). */
  tools: readonly string[];
  /** The model request's activity type (ours: callModel; the peer's: invokeModel). */
  model: string;
}

export interface TurnHistory {
  events: number;
  bytes: number;
  /** First to last event, by the server's clock. */
  serverMs: number;
  toolCalls: number;
  toolPhaseMs: number;
  modelRequests: number;
  /** Sums over the turn's model activities: scheduled → started, and scheduled → completed. */
  modelQueueMs: number;
  modelMs: number;
  /** Model time not overlapping the tool phase (ours starts tools while the response streams). */
  modelOutsideToolsMs: number;
  workflowTasks: number;
  /** Sums over the turn's workflow tasks: scheduled → started, started → completed. */
  workflowTaskQueueMs: number;
  workflowTaskRunMs: number;
  activityTasksOther: number;
}

type Interval = readonly [number, number];

/** The length of a union of intervals. */
export function unionMs(intervals: readonly Interval[]): number {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const [from, to] of sorted) {
    if (to <= end) continue;
    total += to - Math.max(from, end);
    end = to;
  }
  return total;
}

/** How much of `interval` the intervals of `cover` leave uncovered. */
function uncoveredMs(interval: Interval, cover: readonly Interval[]): number {
  const clipped = cover
    .map(([a, b]): Interval => [Math.max(a, interval[0]), Math.min(b, interval[1])])
    .filter(([a, b]) => b > a);
  return interval[1] - interval[0] - unionMs(clipped);
}

export function turnHistory(events: readonly HistoryEvent[], types: ActivityTypes): TurnHistory {
  const byId = new Map<number, HistoryEvent>();
  for (const e of events) byId.set(Number(e.eventId ?? 0), e);
  const at = (id: unknown) => byId.get(Number(id ?? 0));
  const tools: Interval[] = [];
  const models: Interval[] = [];
  let modelQueueMs = 0;
  let workflowTasks = 0;
  let workflowTaskQueueMs = 0;
  let workflowTaskRunMs = 0;
  let activityTasksOther = 0;
  for (const e of events) {
    if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED) {
      workflowTaskQueueMs +=
        eventTimeMs(e) - eventTimeMs(at(e.workflowTaskStartedEventAttributes?.scheduledEventId));
    } else if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
      workflowTasks += 1;
      workflowTaskRunMs +=
        eventTimeMs(e) - eventTimeMs(at(e.workflowTaskCompletedEventAttributes?.startedEventId));
    } else if (e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED) {
      const attrs = e.activityTaskCompletedEventAttributes;
      const scheduled = at(attrs?.scheduledEventId);
      const type = scheduled?.activityTaskScheduledEventAttributes?.activityType?.name ?? '';
      const interval: Interval = [eventTimeMs(scheduled), eventTimeMs(e)];
      if (types.tools.includes(type)) tools.push(interval);
      else if (type === types.model) {
        models.push(interval);
        modelQueueMs += eventTimeMs(at(attrs?.startedEventId)) - eventTimeMs(scheduled);
      } else activityTasksOther += 1;
    }
  }
  return {
    events: events.length,
    bytes: events.reduce((n, e) => n + eventBytes(e), 0),
    serverMs: eventTimeMs(events.at(-1)) - eventTimeMs(events[0]),
    toolCalls: tools.length,
    toolPhaseMs: unionMs(tools),
    modelRequests: models.length,
    modelQueueMs,
    modelMs: models.reduce((n, [a, b]) => n + b - a, 0),
    modelOutsideToolsMs: models.reduce((n, m) => n + uncoveredMs(m, tools), 0),
    workflowTasks,
    workflowTaskQueueMs,
    workflowTaskRunMs,
    activityTasksOther,
  };
}

/** The largest event types of a history by bytes (for the 60-call turn: where its bytes go). */
export function largestEventTypes(events: readonly HistoryEvent[], top = 6) {
  return Object.fromEntries(
    Object.entries(byEventType(events))
      .sort((a, b) => b[1].bytes - a[1].bytes)
      .slice(0, top),
  );
}

/** How many events of each type a history has (EVENT_TYPE_ prefix dropped): where a turn's events go. */
export function eventTypeCounts(events: readonly HistoryEvent[]): Record<string, number> {
  return Object.fromEntries(Object.entries(byEventType(events)).map(([type, { count }]) => [type, count]));
}

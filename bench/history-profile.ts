/** Events and bytes of a slice of workflow history, by event type. */
import { temporal } from '@temporalio/proto';
import { eventBytes, type HistoryEvent } from '../test/support/history-events';

export { eventBytes, type HistoryEvent } from '../test/support/history-events';

const EventType = temporal.api.enums.v1.EventType;

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

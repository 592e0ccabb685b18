import type { CallPolicy, PreparedCall, TranscriptEvent } from '../../core';

/** A call carried by reference: `[key order, policy]`, indexes into the tables carried with it. */
type CallRef = [shape: number, policy: number];

type RespondedEvent = Extract<TranscriptEvent, { type: 'model.responded' }>;
export type CarriedEvent =
  | TranscriptEvent
  | (Omit<RespondedEvent, 'calls'> & { calls: (PreparedCall | CallRef)[] });

export interface CarriedEvents {
  events: CarriedEvent[];
  /** The distinct call policies, and key orders of calls, that references point into. */
  policies: CallPolicy[];
  shapes: string[][];
}

const rebuildable = new Set(['toolCallId', 'toolName', 'input', 'policy']);

/**
 * A model response's calls repeat what its message's tool-call parts already say — the same id,
 * name and input, in the same order — plus their tool's policy, the same for most calls. A long
 * turn carries thousands of them at continue-as-new, so a call that is exactly its part plus a
 * policy is carried as two small indexes and rebuilt on the other side to the same JSON (same
 * fields, same key order). Any other call (a rejected one, say) is carried whole.
 */
export function compactCalls(events: readonly TranscriptEvent[]): CarriedEvents {
  const policies = new IndexTable<CallPolicy>();
  const shapes = new IndexTable<string[]>();
  const compact = events.map((event): CarriedEvent => {
    if (event.type !== 'model.responded') return event;
    const parts = event.message.content.filter((p) => p.type === 'tool-call');
    return {
      ...event,
      calls: event.calls.map((call, position) => {
        const part = parts[position];
        const keys = Object.keys(call);
        const same =
          part !== undefined &&
          keys.every((key) => rebuildable.has(key)) &&
          part.toolCallId === call.toolCallId &&
          part.toolName === call.toolName &&
          JSON.stringify(part.input) === JSON.stringify(call.input);
        return same ? [shapes.indexOf(keys), policies.indexOf(call.policy)] : call;
      }),
    };
  });
  return { events: compact, policies: policies.values, shapes: shapes.values };
}

/** The events `compactCalls` was given. Events carried whole (an older run's format) pass through. */
export function expandCalls({
  events,
  policies = [],
  shapes = [],
}: Partial<CarriedEvents>): TranscriptEvent[] {
  return (events ?? []).map((event): TranscriptEvent => {
    if (event.type !== 'model.responded') return event;
    const parts = event.message.content.filter((p) => p.type === 'tool-call');
    return {
      ...event,
      calls: event.calls.map((call, position) => {
        if (!Array.isArray(call)) return call;
        const [shape, policy] = call;
        const part = parts[position];
        const keys = shapes[shape];
        const fields: Record<string, unknown> = { ...part, policy: policies[policy] };
        if (!part || !keys || fields.policy === undefined)
          throw new Error(
            `carried call ${position} of response ${event.responseIndex} has no part or policy`,
          );
        return Object.fromEntries(keys.map((key) => [key, fields[key]])) as PreparedCall;
      }),
    };
  });
}

/** Distinct values (by their JSON) in first-seen order, each with its index. */
class IndexTable<T> {
  readonly values: T[] = [];
  private readonly indexes = new Map<string, number>();

  indexOf(value: T): number {
    const key = JSON.stringify(value);
    let index = this.indexes.get(key);
    if (index === undefined) {
      index = this.values.length;
      this.values.push(value);
      this.indexes.set(key, index);
    }
    return index;
  }
}

import type { AssistantMessage, LiveChannelName, ProgressEntry, TurnWatchEvent } from 'durable-turns';

export async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const event of events) all.push(event);
  return all;
}

export type ResponseText = Record<LiveChannelName, string>;

/**
 * Per response, what a consumer shows of its text and reasoning from the events alone. It throws
 * on a delta that does not continue exactly where its channel stands (out of order, repeated), on
 * any live event outside its response's `model.requested` … `model.responded`, and on a gap: the
 * texts the cases stream are far below what either executor could miss.
 */
export function shownText(events: readonly TurnWatchEvent[]): Map<number, ResponseText> {
  const shown = new Map<number, ResponseText>();
  const open = new Set<number>();
  for (const event of events) {
    if (event.kind === 'entry') {
      if (event.entry.type === 'model.requested') open.add(event.entry.responseIndex);
      if (event.entry.type === 'model.responded') {
        open.delete(event.entry.responseIndex);
        // A response without text or reasoning shows nothing: no delta, and that adds up too.
        if (!shown.has(event.entry.responseIndex))
          shown.set(event.entry.responseIndex, { text: '', reasoning: '' });
      }
      continue;
    }
    // What sub-agents wait on is about no response.
    if (event.kind === 'sub-agent-approvals') continue;
    if (!open.has(event.responseIndex))
      throw new Error(`${event.kind} of response ${event.responseIndex} outside its request and response`);
    if (event.kind === 'gap') throw new Error(`unexpected gap: ${JSON.stringify(event)}`);
    const text = shown.get(event.responseIndex) ?? { text: '', reasoning: '' };
    if (event.kind === 'restart') {
      shown.set(event.responseIndex, { text: '', reasoning: '' });
      continue;
    }
    if (event.offset !== text[event.channel].length)
      throw new Error(
        `${event.channel} delta at ${event.offset}, but response ${event.responseIndex} shows ${text[event.channel].length} units`,
      );
    text[event.channel] += event.delta;
    shown.set(event.responseIndex, text);
  }
  return shown;
}

/** Per response, the text and reasoning its `model.responded` entry recorded. */
export function recordedText(events: readonly TurnWatchEvent[]): Map<number, ResponseText> {
  const recorded = new Map<number, ResponseText>();
  for (const event of events)
    if (event.kind === 'entry' && event.entry.type === 'model.responded')
      recorded.set(event.entry.responseIndex, {
        text: channel(event.entry.message, 'text'),
        reasoning: channel(event.entry.message, 'reasoning'),
      });
  return recorded;
}

function channel(message: AssistantMessage, name: LiveChannelName): string {
  return message.content.map((part) => (part.type === name && 'text' in part ? part.text : '')).join('');
}

export function entriesOf(events: readonly TurnWatchEvent[]): ProgressEntry[] {
  return events.flatMap((event) => (event.kind === 'entry' ? [{ seq: event.seq, entry: event.entry }] : []));
}

/** Resolves once `predicate` holds for an event seen by `watching`, or after `capMs` (then the case's assertions say why). */
export function tapped(
  events: AsyncIterable<TurnWatchEvent>,
  predicate: (event: TurnWatchEvent) => boolean,
  capMs = 30_000,
): { events: Promise<TurnWatchEvent[]>; seen: Promise<void> } {
  let mark = () => {};
  const seen = new Promise<void>((resolve) => {
    mark = resolve;
    setTimeout(resolve, capMs).unref();
  });
  const all = (async () => {
    const list: TurnWatchEvent[] = [];
    for await (const event of events) {
      list.push(event);
      if (predicate(event)) mark();
    }
    mark();
    return list;
  })();
  return { events: all, seen };
}

import { isRecord, type Json } from './json-fields';

/** One server-sent event: its `event:` name (absent: the default `message`) and its data lines joined. */
export interface ServerSentEvent {
  event?: string;
  data: string;
}

/**
 * Reads a `text/event-stream` body as the WHATWG rules say: events end at a blank line, `:` lines
 * are comments (OpenRouter's keep-alives), one space after a field's colon is dropped, `data:` lines
 * join with `\n`. An event without data is not dispatched.
 */
export function readServerSentEvents(body: string): ServerSentEvent[] {
  const events: ServerSentEvent[] = [];
  let name: string | undefined;
  let data: string[] = [];
  for (const line of body.split(/\r\n|\r|\n/)) {
    if (line === '') {
      if (data.length > 0)
        events.push({ ...(name === undefined ? {} : { event: name }), data: data.join('\n') });
      name = undefined;
      data = [];
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') name = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length > 0) events.push({ ...(name === undefined ? {} : { event: name }), data: data.join('\n') });
  return events;
}

/** A JSON event's data as an object; the stream's `[DONE]` sentinel and other non-objects as undefined. */
export function jsonData(event: ServerSentEvent): Json | undefined {
  if (event.data === '[DONE]') return undefined;
  const parsed: unknown = JSON.parse(event.data);
  return isRecord(parsed) ? parsed : undefined;
}

/** One server-sent event: `id` only on journal entries (their `seq`), so Last-Event-ID resumes by seq. */
export interface SseMessage {
  id?: number;
  event: 'entry' | 'live' | 'state' | 'end' | 'error' | 'health' | 'history';
  data: unknown;
}

/** The event as it goes on the wire (`data` as one line of JSON). */
export function sseFrame({ message }: { message: SseMessage }): string {
  const id = message.id === undefined ? '' : `id: ${message.id}\n`;
  return `${id}event: ${message.event}\ndata: ${JSON.stringify(message.data)}\n\n`;
}

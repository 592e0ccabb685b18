import type { UIMessage, UIMessageChunk } from 'ai';
import { EventSourceParserStream } from 'eventsource-parser/stream';

export interface SseEvent {
  id: string | undefined;
  chunk: UIMessageChunk;
}

/**
 * A UI message stream's events as a plain SSE client (an `EventSource`) sees them, each with its
 * id, until `enough` says so (then the connection is dropped, as by a network that failed) or the
 * stream ends.
 */
export async function sseEvents(
  response: Response,
  enough?: (events: SseEvent[]) => boolean,
): Promise<SseEvent[]> {
  if (!response.body) throw new Error(`no body (status ${response.status})`);
  const reader = response.body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  const events: SseEvent[] = [];
  for (;;) {
    const next = await reader.read();
    if (next.done) return events;
    if (next.value.data === '[DONE]') continue;
    events.push({ id: next.value.id, chunk: JSON.parse(next.value.data) as UIMessageChunk });
    if (enough?.(events)) {
      await reader.cancel();
      return events;
    }
  }
}

/** The message these chunks make, read as one stream by the AI SDK's own code. */
export async function messageOfChunks(chunks: UIMessageChunk[]): Promise<UIMessage> {
  const { readUIMessageStream } = await import('ai');
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream })) last = snapshot;
  if (!last) throw new Error('no message');
  return last;
}

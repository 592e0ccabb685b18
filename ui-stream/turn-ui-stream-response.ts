import { createUIMessageStreamResponse } from 'ai';
import type { TurnWatchEvent } from '../core';
import { turnUiChunks } from './turn-ui-chunks';

/**
 * A turn as the AI SDK's UI message stream over SSE (what `useChat` reads), from its start: give
 * it the turn's watch from the beginning (`TurnHandle.watch({ after: 0 })` on Temporal,
 * `InProcessExecutor.watch(turnId, { after: 0 })` in process). Everything comes from the turn, so
 * any server instance can answer a reconnect the same way. A client that goes away ends the watch.
 */
export function turnUiStreamResponse({
  events,
  messageId,
  headers,
}: {
  events: AsyncIterable<TurnWatchEvent>;
  /** The assistant message's id on the client (e.g. the turn id). */
  messageId: string;
  headers?: Record<string, string>;
}): Response {
  const chunks = turnUiChunks(events, { messageId });
  const stream = new ReadableStream({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
  return createUIMessageStreamResponse({ stream, ...(headers ? { headers } : {}) });
}

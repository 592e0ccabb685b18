import type { TurnWatchEvent } from '../core';
import { loadAiSdk } from './load-ai-sdk';
import { turnUiChunks } from './turn-ui-chunks';

/**
 * A turn as the AI SDK's UI message stream over SSE (what `useChat` reads), from its start: `watch`
 * opens the turn's watch from the beginning (`TurnHandle.watch({ after: 0, signal })` on Temporal,
 * `InProcessExecutor.watch(turnId, { after: 0, signal })` in process). Everything comes from the
 * turn, so any server instance answers a reconnect the same way. The watch ends when the client
 * goes away (the response's stream is cancelled), when `signal` (the request's) aborts, or after
 * the turn's end.
 */
export function turnUiStreamResponse({
  watch,
  messageId,
  signal,
  headers,
  endAtPause,
  afterDecisionsOf,
}: {
  watch: (signal: AbortSignal) => AsyncIterable<TurnWatchEvent>;
  /** The assistant message's id on the client (e.g. the turn id). */
  messageId: string;
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** End the stream when the turn waits for nothing but approvals, from this entry on (see `turnUiChunks`). */
  endAtPause?: { from: number };
  /** Continue a message after its pause: send nothing before a decision on one of these calls. */
  afterDecisionsOf?: readonly string[];
}): Response {
  const stop = new AbortController();
  const abort = () => stop.abort();
  signal?.addEventListener('abort', abort, { once: true });
  const chunks = turnUiChunks(watch(stop.signal), {
    messageId,
    ...(endAtPause ? { endAtPause } : {}),
    ...(afterDecisionsOf ? { afterDecisionsOf } : {}),
  });
  const end = async () => {
    signal?.removeEventListener('abort', abort);
    // The abort ends a watch waiting for the turn's next event; then the generator can return.
    stop.abort();
    await chunks.return(undefined);
  };
  const stream = new ReadableStream({
    async pull(controller) {
      const next = await chunks.next();
      if (!next.done) return controller.enqueue(next.value);
      controller.close();
      await end();
    },
    cancel: end,
  });
  return loadAiSdk().createUIMessageStreamResponse({ stream, ...(headers ? { headers } : {}) });
}

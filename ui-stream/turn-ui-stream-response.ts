import type { TurnWatchEvent } from '../core';
import { loadAiSdk } from './load-ai-sdk';
import { positionedUiChunks } from './turn-ui-chunks';
import { decodePosition, encodePosition, type UiStreamPosition } from './ui-stream-position';

export interface TurnUiStreamOptions {
  watch: (signal: AbortSignal) => AsyncIterable<TurnWatchEvent>;
  /** The assistant message's id on the client (e.g. the turn id). */
  messageId: string;
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** End the stream when the turn waits for nothing but approvals, from this entry on (see `turnUiChunks`). */
  endAtPause?: { from: number };
  /** Continue a message after its pause: send nothing before a decision on one of these calls. */
  afterDecisionsOf?: readonly string[];
  /**
   * The `Last-Event-ID` a reconnecting client sent (an event id of this stream): only what follows
   * that event is sent. Without it (`null` or empty: no header), the message from its start.
   */
  lastEventId?: string | null;
  /** Before each event id (e.g. which turn of a chat); `lastEventId` is read with it removed. */
  eventIdPrefix?: string;
}

/**
 * A turn as the AI SDK's UI message stream over SSE (what `useChat` reads), from its start: `watch`
 * opens the turn's watch from the beginning (`TurnHandle.watch({ after: 0, signal })` on Temporal,
 * `InProcessExecutor.watch(turnId, { after: 0, signal })` in process). Everything comes from the
 * turn, so any server instance answers a reconnect the same way. The watch ends when the client
 * goes away (the response's stream is cancelled), when `signal` (the request's) aborts, or after
 * the turn's end.
 *
 * Each event has an id saying where the stream stands after it; a client that reconnects with it
 * (`Last-Event-ID`, as `EventSource` does) gets exactly what follows, from any instance. A malformed
 * id is refused (400); one after the message's finish gets 204 (an `EventSource` then stops).
 */
export function turnUiStreamResponse(options: TurnUiStreamOptions): Response {
  const { watch, messageId, signal, headers, endAtPause, afterDecisionsOf, eventIdPrefix = '' } = options;
  let after: UiStreamPosition | undefined;
  // An empty id is no id (what SSE means by an `id:` field left empty).
  if (options.lastEventId) {
    const decoded = readEventId(options.lastEventId, eventIdPrefix);
    if ('invalid' in decoded) return Response.json({ error: decoded.invalid }, { status: 400 });
    if (decoded.finished) return new Response(null, { status: 204 });
    after = decoded;
  }
  const stop = new AbortController();
  const abort = () => stop.abort();
  signal?.addEventListener('abort', abort, { once: true });
  const chunks = positionedUiChunks(watch(stop.signal), {
    messageId,
    ...(endAtPause ? { endAtPause } : {}),
    ...(afterDecisionsOf ? { afterDecisionsOf } : {}),
    ...(after ? { after } : {}),
  });
  const end = async () => {
    signal?.removeEventListener('abort', abort);
    // The abort ends a watch waiting for the turn's next event; then the generator can return.
    stop.abort();
    await chunks.return(undefined);
  };
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (!next.done) {
        const { chunk, position } = next.value;
        const id = `${eventIdPrefix}${encodePosition(position)}`;
        return controller.enqueue(encoder.encode(`id: ${id}\ndata: ${JSON.stringify(chunk)}\n\n`));
      }
      // What the AI SDK's own SSE stream ends with.
      controller.enqueue(encoder.encode('data: [DONE]\n\n'));
      controller.close();
      await end();
    },
    cancel: end,
  });
  const { UI_MESSAGE_STREAM_HEADERS } = loadAiSdk();
  return new Response(stream, { headers: { ...UI_MESSAGE_STREAM_HEADERS, ...headers } });
}

/** The position in an event id this stream made (with its prefix). */
export function readEventId(id: string, prefix = ''): UiStreamPosition | { invalid: string } {
  if (!id.startsWith(prefix))
    return { invalid: `${JSON.stringify(id.slice(0, 80))} is not an event id of this stream` };
  return decodePosition(id.slice(prefix.length));
}

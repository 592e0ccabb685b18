import type { TurnWatchEvent } from '../core';
import { type Chunk, TurnUiMapper } from './turn-ui-mapper';

export type { TurnDataParts } from './turn-ui-mapper';

/**
 * A turn's watch events as the AI SDK's UI message stream: one assistant message, a step per model
 * request, its text and reasoning as they stream, each tool call's input, approval request and
 * output, steered user messages, and a finish with the turn's true status. The AI SDK cannot take
 * back streamed text, so text that no longer stands (a request asked again) ends its part, a
 * `data-retracted` part names it, and the text goes on in a new part.
 *
 * It needs the watch from the turn's start (`after: 0`): a client that reconnects is sent the
 * message again from its start, as `useChat`'s resume expects.
 *
 * A chat client answers approval requests in a new request, once the stream it reads has ended:
 * with `endAtPause` the stream ends (finish reason `tool-calls`) when the turn waits for nothing
 * but approvals — at a pause reached at or after entry `endAtPause.from` (the journal's end when
 * the stream was asked for: a replay does not end at a pause the turn has since left).
 * `afterDecisionsOf` continues such a message after its pause: nothing is sent until the decision
 * on one of those calls (or the turn's end), then what came after that pause, as the client holds
 * the rest.
 */
export async function* turnUiChunks(
  events: AsyncIterable<TurnWatchEvent>,
  {
    messageId,
    endAtPause,
    afterDecisionsOf,
  }: { messageId: string; endAtPause?: { from: number }; afterDecisionsOf?: readonly string[] },
): AsyncGenerator<Chunk> {
  const mapper = new TurnUiMapper();
  const decided = afterDecisionsOf && new Set(afterDecisionsOf);
  let sending = decided === undefined;
  /** While not sending: the chunks since the latest pause, which the client has not seen. */
  let sincePause: Chunk[] = [];
  let seq = 0;
  yield { type: 'start', messageId };
  for await (const event of events) {
    if (event.kind === 'entry') seq = event.seq;
    const chunks = [...mapper.map(event)];
    if (!sending) {
      sincePause.push(...chunks);
      if (mapper.paused) sincePause = [];
      const { entry } = event.kind === 'entry' ? event : { entry: undefined };
      sending =
        (entry?.type === 'tool.approval_decided' && decided?.has(entry.toolCallId) === true) ||
        entry?.type === 'turn.finished';
      if (sending) yield* sincePause;
    } else yield* chunks;
    // Nothing after the finish: leaving the loop also ends the watch.
    if (mapper.finished) return;
    if (sending && endAtPause && seq >= endAtPause.from && mapper.paused) {
      yield { type: 'finish', finishReason: 'tool-calls' };
      return;
    }
  }
}

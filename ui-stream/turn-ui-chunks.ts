import type { TurnWatchEvent } from '../core';
import { type Chunk, TurnUiMapper } from './turn-ui-mapper';
import type { UiStreamPosition } from './ui-stream-position';

export type { TurnDataParts } from './turn-ui-mapper';

export interface TurnUiChunkOptions {
  messageId: string;
  /** End the stream when the turn waits for nothing but approvals, from this entry on. */
  endAtPause?: { from: number };
  /** Continue a message after its pause: send nothing before a decision on one of these calls. */
  afterDecisionsOf?: readonly string[];
  /** Send only what follows this position (a chunk's, from a client that reconnects). */
  after?: UiStreamPosition;
}

/** A chunk and where the stream stands once the client has it. */
export interface PositionedChunk {
  chunk: Chunk;
  position: UiStreamPosition;
}

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
  options: TurnUiChunkOptions,
): AsyncGenerator<Chunk> {
  for await (const { chunk } of positionedUiChunks(events, options)) yield chunk;
}

/**
 * `turnUiChunks` with each chunk's position. With `after`, the journal up to the position is mapped
 * again without being sent, the mapper takes on what the live text had left there, and what
 * follows is sent: a text part goes on from where the client's stopped (checked against what it
 * showed), and an entry the client had part of is sent from its next chunk.
 */
export async function* positionedUiChunks(
  events: AsyncIterable<TurnWatchEvent>,
  { messageId, endAtPause, afterDecisionsOf, after }: TurnUiChunkOptions,
): AsyncGenerator<PositionedChunk> {
  // A continuation after a pause is the useChat protocol's; a position already says what was sent.
  if (after && afterDecisionsOf)
    throw new TypeError('a UI stream resumes after a position or continues after decisions, not both');
  const mapper = new TurnUiMapper();
  const decided = afterDecisionsOf && new Set(afterDecisionsOf);
  let sending = decided === undefined;
  /** While not sending: the chunks since the latest pause, which the client has not seen. */
  let sincePause: PositionedChunk[] = [];
  let seq = 0;
  let flags = { paused: false, finished: false };
  const at = (k = 0): UiStreamPosition => ({ seq, k, ...mapper.position(), ...flags });
  // A stream resumed after it ended at a pause does not end at that pause again.
  const pauseFrom = Math.max(endAtPause?.from ?? 0, after?.paused ? after.seq + 1 : 0);

  /** Live-text events met before the journal reached the position: mapped once it has. */
  let waiting: TurnWatchEvent[] | undefined = after ? [] : undefined;
  /** Chunks of the next entry the client has (from a position inside an entry's chunks). */
  let skip = 0;
  let catchingUp = after !== undefined;

  if (!after) yield { chunk: { type: 'start', messageId }, position: at() };

  /** Maps one event; a chunk is positioned when taken, so a live-text chunk's position is exact. */
  function* mapped(event: TurnWatchEvent): Generator<PositionedChunk> {
    if (event.kind !== 'entry') {
      for (const chunk of mapper.map(event)) yield { chunk, position: at() };
      return;
    }
    // An entry's chunks are made again alike from the state before it: inside them, the position is
    // that state and how many were sent.
    const before = at();
    const chunks = [...mapper.map(event)];
    seq = event.seq;
    if (mapper.finished) flags = { ...flags, finished: true };
    const after = at();
    for (const [index, chunk] of chunks.entries())
      yield { chunk, position: index === chunks.length - 1 ? after : { ...before, k: index + 1 } };
  }

  for await (const event of events) {
    // What sub-agents wait on is for operators (the turn's state), not part of the chat's message.
    if (event.kind === 'sub-agent-approvals') continue;
    const batch: PositionedChunk[] = [];
    if (catchingUp && after) {
      if (event.kind !== 'entry') {
        // Text of a response the client has whole is mapped unsent; any later text waits.
        if (event.responseIndex < after.responseIndex) drain(mapper.map(event));
        else wait(event);
        continue;
      }
      if (event.seq <= after.seq) {
        drain(mapper.map(event));
        seq = event.seq;
        if (event.entry.type === 'model.responded') dropWaiting(event.entry.responseIndex);
        if (event.seq < after.seq) continue;
      }
      // The journal has reached the position: the client's state is the mapper's from here.
      catchingUp = false;
      skip = after.k;
      if (mapper.finished) flags = { ...flags, finished: true };
      for (const chunk of mapper.restore(after)) batch.push({ chunk, position: at() });
      // Inside an entry's chunks, its rest comes before any text read since.
      if (skip === 0) batch.push(...flushWaiting());
      if (event.seq <= after.seq) {
        yield* send(batch, undefined);
        if (mapper.finished) return;
        // The client may hold everything before a pause's finish, and not the finish.
        if (yield* endsAtPause()) return;
        continue;
      }
    }
    if (skip > 0 && event.kind !== 'entry') {
      wait(event);
      continue;
    }
    const chunks = [...mapped(event)];
    batch.push(...chunks.slice(skip));
    if (skip > 0) {
      // The client had the first `skip` of this entry's chunks.
      skip = 0;
      if (event.kind === 'entry' && event.entry.type === 'model.responded')
        dropWaiting(event.entry.responseIndex);
      batch.push(...flushWaiting());
    }
    yield* send(batch, event);
    // Nothing after the finish: leaving the loop also ends the watch.
    if (mapper.finished) return;
    if (yield* endsAtPause()) return;
  }

  /** At a pause (reached from `pauseFrom` on), the stream ends with a finish saying so. */
  function* endsAtPause(): Generator<PositionedChunk, boolean> {
    if (!(sending && endAtPause && seq >= pauseFrom && mapper.paused)) return false;
    flags = { ...flags, paused: true };
    yield { chunk: { type: 'finish', finishReason: 'tool-calls' }, position: at() };
    return true;
  }

  function wait(event: TurnWatchEvent): void {
    if (waiting) waiting.push(event);
    else waiting = [event];
  }

  function dropWaiting(responseIndex: number): void {
    if (waiting)
      waiting = waiting.filter(
        (e) => e.kind === 'entry' || e.kind === 'sub-agent-approvals' || e.responseIndex > responseIndex,
      );
  }

  function flushWaiting(): PositionedChunk[] {
    const events = waiting ?? [];
    waiting = undefined;
    return events.flatMap((event) => [...mapped(event)]);
  }

  function* send(batch: PositionedChunk[], event: TurnWatchEvent | undefined): Generator<PositionedChunk> {
    if (sending) return yield* batch;
    sincePause.push(...batch);
    if (mapper.paused) sincePause = [];
    const entry = event?.kind === 'entry' ? event.entry : undefined;
    sending =
      (entry?.type === 'tool.approval_decided' && decided?.has(entry.toolCallId) === true) ||
      entry?.type === 'turn.finished';
    if (sending) yield* sincePause;
  }
}

/** Runs a mapping for its effect on the mapper's state: the client has these chunks. */
function drain(chunks: Iterable<unknown>): void {
  for (const _ of chunks);
}

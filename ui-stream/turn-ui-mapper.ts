import {
  applyEntry,
  type JournalEntry,
  type TurnState,
  type TurnWatchEvent,
  waitsOnlyForApprovals,
} from '../core';
import { renderToolOutput } from '../core/schema/tool-output';
import { LiveTextParts } from './live-text-parts';
import type { Chunk, TurnDataParts } from './ui-chunk';
import { finishReasonOf, userText } from './ui-chunk-of';
import type { MapperPosition } from './ui-stream-position';

export type { Chunk, TurnDataParts } from './ui-chunk';

/** The current response's calls held until its text is placed, and how many of them were sent. */
interface Held {
  chunks: Chunk[];
  sent: number;
}

/** Maps one turn's watch events to UI message chunks, keeping what it showed (see `turnUiChunks`). */
export class TurnUiMapper {
  private readonly text = new LiveTextParts();
  private responseIndex = -1;
  private readonly announced = new Set<string>();
  private readonly denied = new Set<string>();
  /** The turn as its journal so far makes it (for when it waits only for approvals). */
  private state: TurnState | undefined;
  private untracked = false;
  /**
   * Chunks of the current response's calls, held until its text is placed: a watch that replays a
   * recorded response meets its calls (accepted while it streamed) before the text, which comes whole
   * at its end. Released at the first live text, or after the text at the response's end, so the
   * message's parts are in the same order however it was watched.
   */
  private held: Held | undefined;
  /**
   * The current response has ended (`model.response_ended`): deltas now are its text sent whole to a
   * watcher that did not see it stream, so they do not release what is held.
   */
  private ended = false;
  finished = false;

  /** The turn waits for approvals and for nothing else (see `waitsOnlyForApprovals`). */
  get paused(): boolean {
    return !this.untracked && waitsOnlyForApprovals(this.state);
  }

  /** The response being asked for (-1 before the first). */
  get currentResponse(): number {
    return this.responseIndex;
  }

  /**
   * What the live text left beyond the journal, as of the last chunk taken from `map` (each chunk's
   * effect is in it before the chunk is yielded), for a stream position.
   */
  position(): MapperPosition {
    const held = this.held;
    return {
      responseIndex: this.responseIndex,
      heldSent: held && !(held.sent > 0 && held.sent === held.chunks.length) ? held.sent : -1,
      ...this.text.position(),
    };
  }

  /**
   * After the journal up to a position was mapped again (its chunks not sent), takes on what the
   * live text left there; yields what the stream was in the middle of sending (a retraction's
   * marker, the rest of the held calls).
   */
  *restore(position: MapperPosition): Generator<Chunk> {
    if (position.heldSent < 0) this.held = undefined;
    else if (this.held) this.held.sent = Math.min(position.heldSent, this.held.chunks.length);
    yield* this.text.restore(position);
    if (this.held && this.held.sent > 0) yield* this.release();
  }

  *map(event: TurnWatchEvent): Generator<Chunk> {
    // What sub-agents wait on is for operators (the turn's state), not part of the chat's message.
    if (event.kind === 'sub-agent-approvals') return;
    // Only the response being asked for streams; anything else is a stale look.
    if (event.kind !== 'entry' && event.responseIndex !== this.responseIndex) return;
    switch (event.kind) {
      case 'delta': {
        let shownText = false;
        // One at a time: a position is taken as each chunk is.
        for (const chunk of this.text.delta(event.channel, event.offset, event.delta)) {
          shownText ||= chunk.type === 'text-delta' || chunk.type === 'reasoning-delta';
          yield chunk;
        }
        // Live text was shown: what the response's calls did so far follows it.
        if (!this.ended && shownText) yield* this.release();
        return;
      }
      case 'gap':
        this.text.gap(event.channel);
        return;
      case 'restart':
        yield* this.text.retractAll();
        return;
      case 'entry':
        yield* this.entry(event.entry);
    }
  }

  private *entry(entry: JournalEntry): Generator<Chunk> {
    this.track(entry);
    if (entry.type === 'model.response_ended') this.ended = true;
    if (this.held && entry.type !== 'model.responded' && entry.type !== 'turn.finished') {
      this.held.chunks.push(...this.chunksOf(entry));
      return;
    }
    yield* this.chunksOf(entry);
  }

  /**
   * Folds the entry into the turn's state, for `paused`: from its `turn.started` on (a watch from
   * the start has it first). A journal the reducer refuses only stops the tracking: the stream
   * goes on, never ending at a pause.
   */
  private track(entry: JournalEntry): void {
    if (this.state === undefined && entry.type !== 'turn.started') return;
    try {
      this.state = applyEntry(this.state, entry);
    } catch {
      this.state = undefined;
      this.untracked = true;
    }
  }

  /** One chunk at a time, counted before it is yielded, so a position taken between them is exact. */
  private *release(): Generator<Chunk> {
    const held = this.held;
    if (!held) return;
    while (held.sent < held.chunks.length) {
      const chunk = held.chunks[held.sent] as Chunk;
      held.sent += 1;
      yield chunk;
    }
    this.held = undefined;
  }

  private *chunksOf(entry: JournalEntry): Generator<Chunk> {
    switch (entry.type) {
      case 'model.requested':
        this.responseIndex = entry.responseIndex;
        this.text.responseIndex = entry.responseIndex;
        this.held = { chunks: [], sent: 0 };
        this.ended = false;
        yield { type: 'start-step' };
        return;
      case 'model.call_accepted':
        yield* this.announce(entry.call.toolCallId, entry.call.toolName, entry.call.input);
        return;
      case 'model.responded':
        yield* this.text.finishText(entry.message);
        yield* this.release();
        for (const call of entry.calls) yield* this.announce(call.toolCallId, call.toolName, call.input);
        yield { type: 'finish-step' };
        return;
      case 'tool.attempt_started':
        yield this.attempt(entry.toolCallId, entry.attempt, 'running');
        return;
      case 'tool.attempt_finished':
        yield this.attempt(entry.toolCallId, entry.attempt, 'finished');
        return;
      case 'tool.attempt_lost':
        yield this.attempt(entry.toolCallId, entry.attempt, 'lost');
        return;
      case 'tool.approval_requested':
        yield { type: 'tool-approval-request', approvalId: entry.toolCallId, toolCallId: entry.toolCallId };
        return;
      case 'tool.approval_decided':
        yield {
          type: 'tool-approval-response',
          approvalId: entry.toolCallId,
          approved: entry.approved,
          ...(entry.reason !== undefined ? { reason: entry.reason } : {}),
        };
        // An approver's answer in the tool's place (`respond`) is the call's output, not a denial.
        if (!entry.approved && entry.decision !== 'respond') {
          this.denied.add(entry.toolCallId);
          yield { type: 'tool-output-denied', toolCallId: entry.toolCallId };
        }
        return;
      case 'tool.completed': {
        if (this.denied.has(entry.toolCallId)) return;
        const { output } = entry;
        yield output.status === 'ok'
          ? {
              type: 'tool-output-available',
              toolCallId: entry.toolCallId,
              output: output.content,
              dynamic: true,
            }
          : {
              type: 'tool-output-error',
              toolCallId: entry.toolCallId,
              errorText: renderToolOutput(output),
              dynamic: true,
            };
        return;
      }
      case 'background.delivered':
        for (const delivery of entry.deliveries)
          yield {
            type: 'data-background',
            id: `background-${delivery.toolCallId}`,
            data: {
              toolCallId: delivery.toolCallId,
              toolName: delivery.toolName,
              status: delivery.output.status,
              content: renderToolOutput(delivery.output),
            },
          };
        return;
      case 'user.steered':
        for (const steered of entry.messages)
          yield {
            type: 'steering-message',
            id: steered.messageId,
            parts: userText(steered.message.content).map((text) => ({ type: 'text' as const, text })),
          };
        return;
      case 'turn.finished':
        this.finished = true;
        yield* this.release();
        yield* this.text.retractOpen();
        yield {
          type: 'data-outcome',
          data: {
            status: entry.status,
            ...(entry.reason ? { reason: entry.reason } : {}),
            // A structured answer (see `OutputConfig`): the page gets the checked value, not only text.
            ...(entry.output !== undefined ? { output: entry.output } : {}),
          },
        };
        yield { type: 'finish', finishReason: finishReasonOf(entry.status) };
        return;
      default:
        return;
    }
  }

  private *announce(toolCallId: string, toolName: string, input: unknown): Generator<Chunk> {
    if (this.announced.has(toolCallId)) return;
    this.announced.add(toolCallId);
    yield { type: 'tool-input-available', toolCallId, toolName, input, dynamic: true };
  }

  private attempt(toolCallId: string, attempt: number, state: TurnDataParts['attempt']['state']): Chunk {
    return {
      type: 'data-attempt',
      id: `attempt-${toolCallId}`,
      data: { toolCallId, attempt, state },
      transient: false,
    };
  }
}

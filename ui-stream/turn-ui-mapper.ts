import type { FinishReason, UIMessageChunk } from 'ai';
import {
  type AssistantMessage,
  applyEntry,
  type JournalEntry,
  type LiveChannelName,
  type TurnState,
  type TurnStatus,
  type TurnWatchEvent,
  waitsOnlyForApprovals,
} from '../core';
import { renderToolOutput } from '../core/schema/tool-output';

/** The data parts the stream carries besides the AI SDK's own (see `TurnDataParts`). */
export type TurnDataParts = {
  /**
   * A part shown while a response streamed that no longer stands (its request was asked again): hide
   * the last `channel` part before this one (the AI SDK's message parts keep no chunk ids).
   */
  retracted: { partId: string; channel: LiveChannelName };
  /** A call's attempt began or ended (the id is the call's, so each call shows its latest). */
  attempt: { toolCallId: string; attempt: number; state: 'running' | 'finished' | 'lost' };
  /** Outputs of background calls, delivered at a model-request boundary. */
  background: { toolCallId: string; toolName: string; status: string; content: string };
  /** How the turn ended, as durable-turns says it (the finish chunk carries the AI SDK's nearest reason). */
  outcome: { status: TurnStatus; reason?: string };
};

export type Chunk = UIMessageChunk<unknown, TurnDataParts>;

interface OpenPart {
  id: string;
  /** The channel's text this part has shown (its length: how far it has got). */
  text: string;
  /** Characters of the channel's text this part has shown; -1 for a part never started (a gap first). */
  shown: number;
  /** Text was missed (a gap): what it shows can no longer be continued by deltas. */
  broken: boolean;
}

const channels: readonly LiveChannelName[] = ['text', 'reasoning'];

/** Maps one turn's watch events to UI message chunks, keeping what it showed (see `turnUiChunks`). */
export class TurnUiMapper {
  private readonly open = new Map<LiveChannelName, OpenPart>();
  private responseIndex = -1;
  private parts = 0;
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
  private held: Chunk[] | undefined;
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

  *map(event: TurnWatchEvent): Generator<Chunk> {
    // Only the response being asked for streams; anything else is a stale look.
    if (event.kind !== 'entry' && event.responseIndex !== this.responseIndex) return;
    switch (event.kind) {
      case 'delta': {
        const shown = [...this.delta(event.channel, event.offset, event.delta)];
        yield* shown;
        // Live text was shown: what the response's calls did so far follows it.
        if (
          !this.ended &&
          shown.some((chunk) => chunk.type === 'text-delta' || chunk.type === 'reasoning-delta')
        )
          yield* this.release();
        return;
      }
      case 'gap': {
        const part = this.open.get(event.channel);
        if (part) part.broken = true;
        else this.open.set(event.channel, { ...this.newPart(event.channel), broken: true, shown: -1 });
        return;
      }
      case 'restart':
        yield* this.retractAll();
        return;
      case 'entry':
        yield* this.entry(event.entry);
    }
  }

  private *entry(entry: JournalEntry): Generator<Chunk> {
    this.track(entry);
    if (entry.type === 'model.response_ended') this.ended = true;
    if (this.held && entry.type !== 'model.responded' && entry.type !== 'turn.finished') {
      this.held.push(...this.chunksOf(entry));
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

  private *release(): Generator<Chunk> {
    const held = this.held;
    this.held = undefined;
    if (held) yield* held;
  }

  private *chunksOf(entry: JournalEntry): Generator<Chunk> {
    switch (entry.type) {
      case 'model.requested':
        this.responseIndex = entry.responseIndex;
        this.held = [];
        this.ended = false;
        yield { type: 'start-step' };
        return;
      case 'model.call_accepted':
        yield* this.announce(entry.call.toolCallId, entry.call.toolName, entry.call.input);
        return;
      case 'model.responded':
        yield* this.finishText(entry.message);
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
        if (!entry.approved) {
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
        yield* this.retractOpen();
        yield {
          type: 'data-outcome',
          data: { status: entry.status, ...(entry.reason ? { reason: entry.reason } : {}) },
        };
        yield { type: 'finish', finishReason: finishReasonOf(entry.status) };
        return;
      default:
        return;
    }
  }

  private *delta(channel: LiveChannelName, offset: number, delta: string): Generator<Chunk> {
    let part = this.open.get(channel);
    if (!part) {
      part = this.newPart(channel);
      this.open.set(channel, part);
      yield startOf(channel, part.id);
    }
    if (part.broken) return;
    if (offset > part.shown) {
      // Text was missed between what was shown and this delta: the response's end brings it whole.
      part.broken = true;
      return;
    }
    const fresh = delta.slice(part.shown - offset);
    if (fresh === '') return;
    part.shown += fresh.length;
    part.text += fresh;
    yield deltaOf(channel, part.id, fresh);
  }

  /** At the response's end: what each channel's part has not shown yet, then its end. */
  private *finishText(message: AssistantMessage): Generator<Chunk> {
    for (const channel of channels) {
      const text = channelText(message, channel);
      let part = this.open.get(channel);
      // Shown text that is not where the recorded text starts no longer stands.
      if (part && (part.broken || !text.startsWith(part.text))) {
        yield* this.retract(channel, part);
        part = undefined;
      }
      if (!part) {
        if (text === '') continue;
        part = this.newPart(channel);
        yield startOf(channel, part.id);
      }
      const rest = text.slice(part.shown);
      if (rest !== '') yield deltaOf(channel, part.id, rest);
      yield endOf(channel, part.id);
      this.open.delete(channel);
    }
  }

  private *retractAll(): Generator<Chunk> {
    for (const channel of channels) {
      const part = this.open.get(channel);
      if (part) yield* this.retract(channel, part);
    }
  }

  /** A turn that ends mid-response (cancelled, failed) leaves no part open. */
  private *retractOpen(): Generator<Chunk> {
    for (const channel of channels) {
      const part = this.open.get(channel);
      if (part && part.shown >= 0) yield endOf(channel, part.id);
      this.open.delete(channel);
    }
  }

  private *retract(channel: LiveChannelName, part: OpenPart): Generator<Chunk> {
    this.open.delete(channel);
    if (part.shown < 0) return; // never started: a gap before anything was shown
    yield endOf(channel, part.id);
    yield { type: 'data-retracted', id: `retracted-${part.id}`, data: { partId: part.id, channel } };
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

  private newPart(channel: LiveChannelName): OpenPart {
    this.parts += 1;
    return { id: `${channel}-${this.responseIndex}-${this.parts}`, text: '', shown: 0, broken: false };
  }
}

function startOf(channel: LiveChannelName, id: string): Chunk {
  return channel === 'text' ? { type: 'text-start', id } : { type: 'reasoning-start', id };
}

function deltaOf(channel: LiveChannelName, id: string, delta: string): Chunk {
  return channel === 'text' ? { type: 'text-delta', id, delta } : { type: 'reasoning-delta', id, delta };
}

function endOf(channel: LiveChannelName, id: string): Chunk {
  return channel === 'text' ? { type: 'text-end', id } : { type: 'reasoning-end', id };
}

/** The channel's whole text in a recorded response: its text parts, or its reasoning parts, joined. */
function channelText(message: AssistantMessage, channel: LiveChannelName): string {
  const content = message.content;
  if (typeof content === 'string') return channel === 'text' ? content : '';
  return content.map((part) => (part.type === channel && 'text' in part ? part.text : '')).join('');
}

function userText(content: string | readonly { type: string; text?: string }[]): string[] {
  if (typeof content === 'string') return [content];
  return content.flatMap((part) =>
    part.type === 'text' && typeof part.text === 'string' ? [part.text] : [],
  );
}

function finishReasonOf(status: TurnStatus): FinishReason {
  switch (status) {
    case 'completed':
      return 'stop';
    case 'cancelled':
      return 'interrupted';
    case 'failed':
      return 'error';
    case 'budget_exhausted':
      return 'length';
    default:
      return 'other';
  }
}

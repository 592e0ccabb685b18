import type { FinishReason, UIMessageChunk } from 'ai';
import type { AssistantMessage, JournalEntry, LiveChannelName, TurnStatus, TurnWatchEvent } from '../core';
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

type Chunk = UIMessageChunk<unknown, TurnDataParts>;

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
 * but approvals; `afterDecisionsOf` continues such a message after its pause — nothing is sent
 * until the decision on one of those calls (or the turn's end), as the client holds the rest.
 */
export async function* turnUiChunks(
  events: AsyncIterable<TurnWatchEvent>,
  {
    messageId,
    endAtPause = false,
    afterDecisionsOf,
  }: { messageId: string; endAtPause?: boolean; afterDecisionsOf?: readonly string[] },
): AsyncGenerator<Chunk> {
  const mapper = new TurnUiMapper();
  const decided = afterDecisionsOf && new Set(afterDecisionsOf);
  let sending = decided === undefined;
  yield { type: 'start', messageId };
  for await (const event of events) {
    if (!sending && event.kind === 'entry') {
      const { entry } = event;
      sending =
        (entry.type === 'tool.approval_decided' && decided?.has(entry.toolCallId) === true) ||
        entry.type === 'turn.finished';
    }
    const chunks = [...mapper.map(event)];
    if (sending) yield* chunks;
    // Nothing after the finish: leaving the loop also ends the watch.
    if (mapper.finished) return;
    if (sending && endAtPause && mapper.paused) {
      yield { type: 'finish', finishReason: 'tool-calls' };
      return;
    }
  }
}

class TurnUiMapper {
  private readonly open = new Map<LiveChannelName, OpenPart>();
  private responseIndex = -1;
  private parts = 0;
  private readonly announced = new Set<string>();
  private readonly denied = new Set<string>();
  /** Calls not ended yet: waiting for a decision on their approval, or not. */
  private readonly unended = new Map<string, 'approval' | 'other'>();
  /** Between a model request and its response. */
  private asking = false;
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

  /** The turn waits for approvals and for nothing else: no response streams, no other call runs. */
  get paused(): boolean {
    if (this.asking || this.unended.size === 0) return false;
    return [...this.unended.values()].every((state) => state === 'approval');
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
    if (entry.type === 'model.response_ended') this.ended = true;
    if (this.held && entry.type !== 'model.responded' && entry.type !== 'turn.finished') {
      this.held.push(...this.chunksOf(entry));
      return;
    }
    yield* this.chunksOf(entry);
  }

  private *release(): Generator<Chunk> {
    const held = this.held;
    this.held = undefined;
    if (held) yield* held;
  }

  private *chunksOf(entry: JournalEntry): Generator<Chunk> {
    switch (entry.type) {
      case 'model.requested':
        this.asking = true;
        this.responseIndex = entry.responseIndex;
        this.held = [];
        this.ended = false;
        yield { type: 'start-step' };
        return;
      case 'model.call_accepted':
        yield* this.announce(entry.call.toolCallId, entry.call.toolName, entry.call.input);
        return;
      case 'model.responded':
        this.asking = false;
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
        this.unended.set(entry.toolCallId, 'approval');
        yield { type: 'tool-approval-request', approvalId: entry.toolCallId, toolCallId: entry.toolCallId };
        return;
      case 'tool.approval_decided':
        if (entry.approved) this.unended.set(entry.toolCallId, 'other');
        else this.unended.delete(entry.toolCallId);
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
        this.unended.delete(entry.toolCallId);
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
    if (!this.unended.has(toolCallId)) this.unended.set(toolCallId, 'other');
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

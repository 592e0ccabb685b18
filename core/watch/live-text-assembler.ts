import type { AssistantMessage } from '../schema/messages';
import type { LiveChannelName, TurnWatchEvent } from './turn-watch-event';

/** A look at one channel's text so far, as its tail: `tail` is the text from offset `from` to its end. */
export interface LiveTextTail {
  from: number;
  tail: string;
}

/**
 * A look at a response while it streams: its text and reasoning so far, as tails. On Temporal it
 * is the model activity's heartbeat (`LiveTextDetails`); in process, the text the stream gave.
 */
export interface LiveTextSnapshot {
  responseIndex: number;
  text: LiveTextTail;
  reasoning: LiveTextTail;
}

const channels: readonly LiveChannelName[] = ['reasoning', 'text'];

interface ChannelState {
  /** Units accounted for: shown as deltas or announced as a gap. */
  length: number;
  /** What was shown, while it is contiguous from 0 (meaningless once `gapped`). */
  shown: string;
  gapped: boolean;
}

interface ResponseState {
  /** The attempt whose text is being shown (on Temporal: activity id and attempt). */
  stream: string;
  channels: Record<LiveChannelName, ChannelState>;
}

const freshChannels = (): Record<LiveChannelName, ChannelState> => ({
  text: { length: 0, shown: '', gapped: false },
  reasoning: { length: 0, shown: '', gapped: false },
});

/**
 * Turns the snapshots a watcher reads of a streaming response (on Temporal the tails its model
 * activity heartbeats, in process the text streamed so far; read as often as the watcher likes:
 * some twice, some never) into deltas that are in order and never repeat, with gaps said out loud;
 * and completes each response from its final message so that, per response and channel, the
 * deltas a watcher saw add up to the recorded text. Both executors' `watch` use it, so their
 * watchers see the same events.
 */
export class LiveTextAssembler {
  private readonly open = new Map<number, ResponseState>();
  private readonly done = new Set<number>();

  /** Events for a snapshot of response `details.responseIndex`, streamed by attempt `stream`. */
  snapshot({ stream, details }: { stream: string; details: LiveTextSnapshot }): TurnWatchEvent[] {
    const { responseIndex } = details;
    if (this.done.has(responseIndex)) return [];
    const events: TurnWatchEvent[] = [];
    let state = this.open.get(responseIndex);
    if (state && state.stream !== stream) {
      // Another attempt streams this response from scratch: what was shown of the last one is void.
      if (shownAnything(state)) events.push({ kind: 'restart', responseIndex });
      state = undefined;
    }
    if (!state) {
      state = { stream, channels: freshChannels() };
      this.open.set(responseIndex, state);
    }
    for (const channel of channels) {
      const seen = state.channels[channel];
      const { from, tail } = details[channel];
      const end = from + tail.length;
      if (end <= seen.length) continue;
      if (from > seen.length) {
        events.push({ kind: 'gap', responseIndex, channel, offset: seen.length, length: from - seen.length });
        seen.length = from;
        seen.gapped = true;
      }
      const delta = tail.slice(seen.length - from);
      events.push({ kind: 'delta', responseIndex, channel, offset: seen.length, delta });
      if (!seen.gapped) seen.shown += delta;
      seen.length = end;
    }
    return events;
  }

  /**
   * Events to yield just before response `responseIndex`'s `model.responded` entry: the rest of
   * its text, or — when what was shown is not its start (a gap, another attempt) — a restart and
   * the whole of it. Snapshots of it that come later are ignored.
   */
  complete({
    responseIndex,
    message,
  }: {
    responseIndex: number;
    message: AssistantMessage;
  }): TurnWatchEvent[] {
    if (this.done.has(responseIndex)) return [];
    this.done.add(responseIndex);
    const state = this.open.get(responseIndex);
    this.open.delete(responseIndex);
    const final = {
      text: channelText({ message, channel: 'text' }),
      reasoning: channelText({ message, channel: 'reasoning' }),
    };
    const events: TurnWatchEvent[] = [];
    const continues =
      state !== undefined &&
      channels.every((c) => !state.channels[c].gapped && final[c].startsWith(state.channels[c].shown));
    if (state && !continues && shownAnything(state)) events.push({ kind: 'restart', responseIndex });
    for (const channel of channels) {
      const offset = continues ? (state?.channels[channel].shown.length ?? 0) : 0;
      const delta = final[channel].slice(offset);
      if (delta) events.push({ kind: 'delta', responseIndex, channel, offset, delta });
    }
    return events;
  }
}

function shownAnything(state: ResponseState): boolean {
  return channels.some((c) => state.channels[c].length > 0);
}

/** A channel's whole text in a recorded message: its parts of that kind, joined. */
export function channelText({
  message,
  channel,
}: {
  message: AssistantMessage;
  channel: LiveChannelName;
}): string {
  return message.content
    .filter((part) => part.type === channel)
    .map((part) => ('text' in part ? part.text : ''))
    .join('');
}

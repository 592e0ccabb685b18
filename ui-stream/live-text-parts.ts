import type { AssistantMessage, LiveChannelName } from '../core';
import { emptyTextHash, textHash } from './text-hash';
import type { Chunk } from './ui-chunk';
import { channelText, deltaOf, endOf, startOf } from './ui-chunk-of';
import type { MapperPosition } from './ui-stream-position';

interface OpenPart {
  id: string;
  /** The channel's text this part has shown (its length: how far it has got). */
  text: string;
  /** Characters of the channel's text this part has shown; -1 for a part never started (a gap first). */
  shown: number;
  /** `textHash` of what it has shown. */
  hash: number;
  /** Text was missed (a gap): what it shows can no longer be continued by deltas. */
  broken: boolean;
  /**
   * A part restored from a position: the client shows `shown` characters known only by their hash,
   * and this is the channel's text read since, from its start, until it covers them and is checked.
   */
  unchecked?: string;
}

const channels: readonly LiveChannelName[] = ['text', 'reasoning'];

/**
 * The current response's text and reasoning parts as the client was shown them: continued by live
 * text while it follows on, ended and marked retracted when it no longer stands, completed from the
 * recorded response at its end.
 */
export class LiveTextParts {
  private open = new Map<LiveChannelName, OpenPart>();
  private parts = 0;
  /** A retracted part whose end was sent and whose `data-retracted` was not yet. */
  private retracting: { channel: LiveChannelName; id: string } | undefined;
  /** The response the parts belong to (names new parts). */
  responseIndex = -1;

  /** Its share of a stream position: taken as each chunk is yielded, its effect already in. */
  position(): Pick<MapperPosition, 'parts' | 'open' | 'retracting'> {
    return {
      parts: this.parts,
      open: [...this.open].map(([channel, part]) => ({
        channel,
        id: part.id,
        shown: part.shown,
        hash: part.hash,
        broken: part.broken,
      })),
      ...(this.retracting ? { retracting: this.retracting } : {}),
    };
  }

  /** Takes on the parts a position names (known by length and hash until the text is read again). */
  *restore(position: Pick<MapperPosition, 'parts' | 'open' | 'retracting'>): Generator<Chunk> {
    this.parts = Math.max(this.parts, position.parts);
    this.open = new Map(
      position.open.map((part) => [
        part.channel,
        { id: part.id, text: '', shown: part.shown, hash: part.hash, broken: part.broken, unchecked: '' },
      ]),
    );
    if (position.retracting) yield retractedOf(position.retracting.channel, position.retracting.id);
  }

  /** Text was missed: the channel's part cannot be continued by deltas. */
  gap(channel: LiveChannelName): void {
    const part = this.open.get(channel);
    if (part) part.broken = true;
    else this.open.set(channel, { ...this.newPart(channel), broken: true, shown: -1 });
  }

  *delta(channel: LiveChannelName, offset: number, delta: string): Generator<Chunk> {
    let part = this.open.get(channel);
    if (!part) {
      part = this.newPart(channel);
      this.open.set(channel, part);
      yield startOf(channel, part.id);
    }
    if (part.broken) return;
    if (part.unchecked !== undefined) {
      yield* this.check(channel, part, offset, delta);
      return;
    }
    if (offset > part.shown) {
      // Text was missed between what was shown and this delta: the response's end brings it whole.
      part.broken = true;
      return;
    }
    const fresh = delta.slice(part.shown - offset);
    if (fresh === '') return;
    part.shown += fresh.length;
    part.text += fresh;
    part.hash = textHash(fresh, part.hash);
    yield deltaOf(channel, part.id, fresh);
  }

  /**
   * A restored part is continued only once the channel's text, read again from its start, is seen
   * to begin with what the part showed (by its hash); otherwise the part is retracted and the text
   * goes on in a new one.
   */
  private *check(channel: LiveChannelName, part: OpenPart, offset: number, delta: string): Generator<Chunk> {
    const read = part.unchecked ?? '';
    if (offset > read.length) {
      part.broken = true;
      return;
    }
    const text = read + delta.slice(read.length - offset);
    if (text.length < part.shown) {
      part.unchecked = text;
      return;
    }
    part.unchecked = undefined;
    if (textHash(text.slice(0, part.shown)) === part.hash) {
      part.text = text.slice(0, part.shown);
      yield* this.delta(channel, part.shown, text.slice(part.shown));
      return;
    }
    yield* this.retract(channel, part);
    yield* this.delta(channel, 0, text);
  }

  /** At the response's end: what each channel's part has not shown yet, then its end. */
  *finishText(message: AssistantMessage): Generator<Chunk> {
    for (const channel of channels) {
      const text = channelText(message, channel);
      let part = this.open.get(channel);
      if (part?.unchecked !== undefined) {
        // Restored: known by its hash only.
        // (A part never started, or one that missed text, stays as it was: retracted below.)
        const stands =
          !part.broken &&
          part.shown >= 0 &&
          text.length >= part.shown &&
          textHash(text.slice(0, part.shown)) === part.hash;
        part = {
          ...part,
          unchecked: undefined,
          text: stands ? text.slice(0, part.shown) : '',
          broken: part.broken || !stands,
        };
      }
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

  *retractAll(): Generator<Chunk> {
    for (const channel of channels) {
      const part = this.open.get(channel);
      if (part) yield* this.retract(channel, part);
    }
  }

  /** A turn that ends mid-response (cancelled, failed) leaves no part open. */
  *retractOpen(): Generator<Chunk> {
    for (const channel of channels) {
      const part = this.open.get(channel);
      if (part && part.shown >= 0) yield endOf(channel, part.id);
      this.open.delete(channel);
    }
  }

  private *retract(channel: LiveChannelName, part: OpenPart): Generator<Chunk> {
    this.open.delete(channel);
    if (part.shown < 0) return; // never started: a gap before anything was shown
    this.retracting = { channel, id: part.id };
    yield endOf(channel, part.id);
    this.retracting = undefined;
    yield retractedOf(channel, part.id);
  }

  private newPart(channel: LiveChannelName): OpenPart {
    this.parts += 1;
    return {
      id: `${channel}-${this.responseIndex}-${this.parts}`,
      text: '',
      shown: 0,
      hash: emptyTextHash,
      broken: false,
    };
  }
}

function retractedOf(channel: LiveChannelName, partId: string): Chunk {
  return { type: 'data-retracted', id: `retracted-${partId}`, data: { partId, channel } };
}

import type { JournalEntry, LiveChannelName, ModelDeltaEvent, ProgressEntry } from '../core';

/** A response streaming now: the text of its current attempt so far. */
export interface StreamingResponse {
  responseIndex: number;
  /** The seq of its `model.requested` entry: a watcher shows it once it is past that entry. */
  requestedSeq: number;
  /** Names the attempt: a new one streams the response from scratch. */
  stream: string;
  text: string;
  reasoning: string;
}

/**
 * What watchers of one turn read while this executor drives it: its journal entries so far,
 * numbered from 1 like the journal itself (and like Temporal's progress), and the text of each
 * response while it streams. Watchers pull from it at their own pace and it never waits for them:
 * a slow watcher costs the turn nothing, and holds no buffer of its own — only its position here.
 * It holds what the turn holds anyway (its entries; the text of the response streaming now).
 */
export class TurnFeed {
  readonly entries: ProgressEntry[] = [];
  private readonly live = new Map<number, StreamingResponse>();
  private readonly requestedSeq = new Map<number, number>();
  private readonly failedAttempts = new Map<number, number>();
  private stopped?: { error?: unknown };
  private wake?: { promise: Promise<void>; resolve: () => void };

  constructor(readonly turnId: string) {}

  /** An entry, once it is durable (entries already in the journal first, in order). */
  recorded({ entry }: { entry: JournalEntry }): void {
    const seq = this.entries.length + 1;
    this.entries.push({ seq, entry });
    if (entry.type === 'model.requested' && !this.requestedSeq.has(entry.responseIndex))
      this.requestedSeq.set(entry.responseIndex, seq);
    if (entry.type === 'model.attempt_failed') {
      // The next attempt streams the response again from its start, under another name.
      this.failedAttempts.set(entry.responseIndex, (this.failedAttempts.get(entry.responseIndex) ?? 0) + 1);
      this.live.delete(entry.responseIndex);
    }
    if (entry.type === 'model.responded') this.live.delete(entry.responseIndex);
    this.notify();
  }

  /** A text or reasoning delta, as the model stream gives it. */
  streamed({ responseIndex, type, delta }: Pick<ModelDeltaEvent, 'responseIndex' | 'type' | 'delta'>): void {
    const requestedSeq = this.requestedSeq.get(responseIndex);
    // Only a response this feed saw requested is placed (a stream from a previous drive is not).
    if (requestedSeq === undefined) return;
    let response = this.live.get(responseIndex);
    if (!response) {
      const stream = `attempt-${(this.failedAttempts.get(responseIndex) ?? 0) + 1}`;
      response = { responseIndex, requestedSeq, stream, text: '', reasoning: '' };
      this.live.set(responseIndex, response);
    }
    const channel: LiveChannelName = type;
    response[channel] += delta;
    this.notify();
  }

  /** The drive ended: with `error` when it threw (the turn may not have finished). */
  stop({ error }: { error?: unknown } = {}): void {
    this.stopped = error === undefined ? {} : { error };
    this.live.clear();
    this.notify();
  }

  get stoppedWith(): { error?: unknown } | undefined {
    return this.stopped;
  }

  /** Responses streaming now (a copy: the feed moves on while a watcher yields). */
  streaming(): StreamingResponse[] {
    return [...this.live.values()].map((response) => ({ ...response }));
  }

  /** Resolves at the next change (an entry, a delta, the end). */
  changed(): Promise<void> {
    if (!this.wake) {
      let resolve = () => {};
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      this.wake = { promise, resolve };
    }
    return this.wake.promise;
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.resolve();
  }
}

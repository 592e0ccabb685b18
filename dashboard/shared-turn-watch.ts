import type { TurnWatchEvent } from '../contract/live-text';
import { CallWaveReader, type CallWaves } from '../core';
import type { SseMessage } from './sse-message';
import type { TurnWatchSource } from './turn-watch-source';

/** An entry as the feed sends it: with the waves of the calls it added, as the engine planned them. */
export type FeedEntry = TurnWatchEvent & { kind: 'entry'; waves?: CallWaves };

export interface TurnSubscriber {
  send(message: SseMessage): void;
  close(): void;
}

/**
 * One upstream watch of a turn, shared by every viewer of it: what the turn sends is kept (every
 * journal entry, and the live text of responses still streaming) and fanned out, so a viewer that
 * joins late or reconnects is replayed from memory, and N viewers cost the turn one watcher. The
 * turn's state is read once per batch of entries (coalesced, at most every `stateIntervalMs`),
 * not once per viewer, and again when what its sub-agents wait on changes
 * (`TurnStateView.subAgentApprovals`, which no entry of this turn's announces).
 */
export class SharedTurnWatch {
  private readonly entries: FeedEntry[] = [];
  private readonly waves = new CallWaveReader();
  /** Live events of each response not yet recorded; dropped when its `model.responded` comes. */
  private readonly streaming = new Map<number, TurnWatchEvent[]>();
  private state: unknown;
  private readonly subscribers = new Set<TurnSubscriber>();
  private readonly abort = new AbortController();
  private ended: SseMessage | undefined;
  private stateBusy = false;
  private stateDirty = false;
  private lingerTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: {
      turnId: string;
      source: TurnWatchSource;
      stateIntervalMs: number;
      /** Whether to read its state: a finished turn's would be a query replayed on a worker, for nothing new. */
      queryState: boolean;
      /** How long the watch outlives its last viewer (a reload reuses it). */
      lingerMs: number;
      onDone: () => void;
    },
  ) {
    void this.run();
    if (options.queryState) this.refreshState();
  }

  /** Replays what is known after entry `after`, then sends what comes; returns the unsubscribe. */
  subscribe({ subscriber, after }: { subscriber: TurnSubscriber; after: number }): () => void {
    clearTimeout(this.lingerTimer);
    if (this.state !== undefined) subscriber.send({ event: 'state', data: this.state });
    for (const event of this.entries) if (event.seq > after) subscriber.send(entryMessage({ event }));
    for (const [responseIndex, events] of this.streaming) {
      // The viewer may have seen part of this response before it reconnected: start it over.
      subscriber.send({ event: 'live', data: { kind: 'restart', responseIndex } });
      for (const event of events) subscriber.send({ event: 'live', data: event });
    }
    if (this.ended) {
      subscriber.send(this.ended);
      subscriber.close();
      return () => {};
    }
    this.subscribers.add(subscriber);
    return () => {
      this.subscribers.delete(subscriber);
      if (this.subscribers.size === 0 && !this.ended)
        this.lingerTimer = setTimeout(() => this.stop(), this.options.lingerMs).unref();
    };
  }

  get viewers(): number {
    return this.subscribers.size;
  }

  /** False once it was stopped for want of viewers: a new viewer needs a new watch. */
  get usable(): boolean {
    return !this.abort.signal.aborted;
  }

  stop(): void {
    this.abort.abort();
  }

  private async run(): Promise<void> {
    const { source, turnId } = this.options;
    try {
      for await (const event of source.watch(turnId, { signal: this.abort.signal })) this.take({ event });
      this.finish({ event: 'end', data: { turnId } });
    } catch (error) {
      this.finish({
        event: 'error',
        data: { error: error instanceof Error ? error.message : String(error) },
      });
    }
  }

  private take({ event }: { event: TurnWatchEvent }): void {
    // What its sub-agents wait on changed (their report is no entry of this turn's): its state says.
    if (event.kind === 'sub-agent-approvals') {
      if (this.options.queryState) this.refreshState();
      return;
    }
    if (event.kind === 'entry') {
      const waves = this.waves.take(event.entry);
      const kept: FeedEntry = waves ? { ...event, waves } : event;
      this.entries.push(kept);
      if (event.entry.type === 'model.responded') this.streaming.delete(event.entry.responseIndex);
      this.broadcast(entryMessage({ event: kept }));
      if (this.options.queryState && event.entry.type !== 'turn.finished') this.refreshState();
      return;
    }
    const kept = event.kind === 'restart' ? [] : (this.streaming.get(event.responseIndex) ?? []);
    kept.push(event);
    this.streaming.set(event.responseIndex, kept);
    this.broadcast({ event: 'live', data: event });
  }

  private refreshState(): void {
    if (this.stateBusy) {
      this.stateDirty = true;
      return;
    }
    this.stateBusy = true;
    const started = Date.now();
    this.options.source
      .state(this.options.turnId)
      .then((state) => {
        if (this.ended) return;
        this.state = state;
        this.broadcast({ event: 'state', data: state });
      })
      // A turn that ended meanwhile, or a busy worker: the next entry asks again.
      .catch(() => {})
      .finally(() => {
        const wait = Math.max(0, this.options.stateIntervalMs - (Date.now() - started));
        setTimeout(() => {
          this.stateBusy = false;
          if (this.stateDirty && !this.ended) {
            this.stateDirty = false;
            this.refreshState();
          }
        }, wait);
      });
  }

  private broadcast(message: SseMessage): void {
    for (const subscriber of this.subscribers) subscriber.send(message);
  }

  private finish(message: SseMessage): void {
    clearTimeout(this.lingerTimer);
    this.ended = message;
    this.broadcast(message);
    for (const subscriber of this.subscribers) subscriber.close();
    this.subscribers.clear();
    this.options.onDone();
  }
}

function entryMessage({ event }: { event: FeedEntry }): SseMessage {
  return { id: event.seq, event: 'entry', data: event };
}

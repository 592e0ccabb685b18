import type { FleetHealthView } from '../client/fleet-health-view';
import { HealthHistory, type HealthPoint, healthPoint } from './health-history';
import type { TurnSubscriber } from './shared-turn-watch';
import type { SseMessage } from './sse-message';

export interface HealthFeedOptions {
  read: () => Promise<FleetHealthView>;
  /** How often the fleet is read while a health page is open. */
  intervalMs: number;
  /**
   * How often it is read while no page is open, so a page opened later has a past to draw; 0 reads
   * nothing then. Workers report every 10 s by default, so reading more often finds nothing new.
   */
  backgroundIntervalMs: number;
  retentionMs: number;
  maxPoints: number;
  now?: () => number;
}

/**
 * Fleet tool health for every open health page from one poll: while anyone watches, the fleet is
 * read every `intervalMs` and each read goes to all of them; with no viewer it is read every
 * `backgroundIntervalMs` (or not at all). Every good read becomes a point of the history.
 */
export class HealthFeed {
  readonly history: HealthHistory;
  private readonly subscribers = new Set<TurnSubscriber>();
  private last: SseMessage | undefined;
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly options: HealthFeedOptions) {
    this.history = new HealthHistory({ retentionMs: options.retentionMs, maxPoints: options.maxPoints });
  }

  /** Starts the background reads (the dashboard calls it once it is ready; `close` stops them). */
  start(): void {
    if (this.options.backgroundIntervalMs > 0 && !this.timer) this.poll();
  }

  subscribe({ subscriber }: { subscriber: TurnSubscriber }): () => void {
    this.subscribers.add(subscriber);
    // The current view first, then the past (which includes it): a page that appends a point per
    // `health` event and replaces its points on `history` holds each reading once.
    if (this.last) subscriber.send(this.last);
    subscriber.send({ event: 'history', data: this.historyBody() });
    // A viewer wants the fast rate now, not at the end of a slow background wait.
    if (this.subscribers.size === 1) this.pollNow();
    return () => {
      this.subscribers.delete(subscriber);
      // The last viewer gone: back to the slow rate (or none), not one more fast read.
      if (this.subscribers.size === 0 && this.timer) {
        clearTimeout(this.timer);
        this.timer = undefined;
        this.schedule();
      }
    };
  }

  /** The kept readings as `GET /api/health/history` and the `history` event carry them. */
  historyBody(): { retentionMs: number; points: HealthPoint[] } {
    return { retentionMs: this.options.retentionMs, points: this.history.list() };
  }

  /**
   * Stops reading; resolves once a read under way has settled (within the upstream deadline), so
   * the caller can close the Temporal connection without a retry of it landing on a closed channel.
   */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    for (const subscriber of this.subscribers) subscriber.close();
    this.subscribers.clear();
    await this.reading;
  }

  private pollNow(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.poll();
  }

  private poll(): void {
    if (this.reading || this.closed) return;
    const now = this.options.now ?? Date.now;
    this.reading = this.options
      .read()
      .then(
        (view): SseMessage => {
          this.history.add({ point: healthPoint({ view, at: now() }) });
          return { event: 'health', data: view };
        },
        (error: unknown): SseMessage => ({
          event: 'error',
          data: { error: error instanceof Error ? error.message : String(error) },
        }),
      )
      .then((message) => {
        this.reading = undefined;
        if (this.closed) return;
        this.last = message;
        for (const subscriber of this.subscribers) subscriber.send(message);
        this.schedule();
      });
  }

  private schedule(): void {
    const wait = this.subscribers.size > 0 ? this.options.intervalMs : this.options.backgroundIntervalMs;
    if (wait > 0 && !this.closed) this.timer = setTimeout(() => this.poll(), wait).unref();
  }
}

import type { FleetHealthView } from '../client/fleet-health-view';
import type { HealthHistoryBody } from '../contract/fleet-health-history';
import type { TurnSubscriber } from './shared-turn-watch';
import type { SseMessage } from './sse-message';

export interface HealthFeedOptions {
  read: () => Promise<FleetHealthView>;
  /** The fleet health workflow's own history of success rates (`FleetHealthClient.healthHistory`). */
  readHistory: () => Promise<HealthHistoryBody>;
  /** How often the fleet is read while a health page is open (nothing is read while none is). */
  intervalMs: number;
}

/**
 * Fleet tool health for every open health page from one poll: while anyone watches, the fleet is
 * read every `intervalMs` and each read goes to all of them. The past comes from the fleet health
 * workflow, which keeps it in Temporal: it outlives this process, and every dashboard of the queue
 * shows the same one. Pages opening together share one read of it.
 */
export class HealthFeed {
  private readonly subscribers = new Set<TurnSubscriber>();
  private last: SseMessage | undefined;
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  private historyRead: Promise<SseMessage> | undefined;
  private closed = false;

  constructor(private readonly options: HealthFeedOptions) {}

  subscribe({ subscriber }: { subscriber: TurnSubscriber }): () => void {
    this.subscribers.add(subscriber);
    // The current view first, then the past: a page appends a point per `health` event and
    // replaces its points on `history`.
    if (this.last) subscriber.send(this.last);
    void this.sharedHistory().then((message) => {
      if (this.subscribers.has(subscriber)) subscriber.send(message);
    });
    if (this.subscribers.size === 1) this.poll();
    return () => {
      this.subscribers.delete(subscriber);
      // The last viewer gone: no more reads until the next one comes.
      if (this.subscribers.size === 0) {
        clearTimeout(this.timer);
        this.timer = undefined;
      }
    };
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
    await Promise.all([this.reading, this.historyRead]);
  }

  private sharedHistory(): Promise<SseMessage> {
    this.historyRead ??= this.options
      .readHistory()
      .then(
        (body): SseMessage => ({ event: 'history', data: body }),
        (error: unknown): SseMessage => ({
          event: 'error',
          data: {
            error: `reading the health history failed: ${error instanceof Error ? error.message : String(error)}`,
          },
        }),
      )
      .finally(() => {
        this.historyRead = undefined;
      });
    return this.historyRead;
  }

  private poll(): void {
    if (this.reading || this.closed) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.reading = this.options
      .read()
      .then(
        (view): SseMessage => ({ event: 'health', data: view }),
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
        if (this.subscribers.size > 0)
          this.timer = setTimeout(() => this.poll(), this.options.intervalMs).unref();
      });
  }
}

import type { FleetHealthView } from '../client/fleet-health-view';
import type { TurnSubscriber } from './shared-turn-watch';
import type { SseMessage } from './sse-message';

/**
 * Fleet tool health for every open health page from one poll: while anyone watches, the fleet is
 * read every `intervalMs` and each read goes to all of them; with no viewer nothing is read.
 */
export class HealthFeed {
  private readonly subscribers = new Set<TurnSubscriber>();
  private last: SseMessage | undefined;
  private timer: NodeJS.Timeout | undefined;
  private reading = false;

  constructor(private readonly options: { read: () => Promise<FleetHealthView>; intervalMs: number }) {}

  subscribe({ subscriber }: { subscriber: TurnSubscriber }): () => void {
    this.subscribers.add(subscriber);
    if (this.last) subscriber.send(this.last);
    if (this.subscribers.size === 1) this.poll();
    return () => {
      this.subscribers.delete(subscriber);
      if (this.subscribers.size === 0) {
        clearTimeout(this.timer);
        this.timer = undefined;
      }
    };
  }

  close(): void {
    clearTimeout(this.timer);
    for (const subscriber of this.subscribers) subscriber.close();
    this.subscribers.clear();
  }

  private poll(): void {
    if (this.reading) return;
    this.reading = true;
    this.options
      .read()
      .then(
        (view): SseMessage => ({ event: 'health', data: view }),
        (error: unknown): SseMessage => ({
          event: 'error',
          data: { error: error instanceof Error ? error.message : String(error) },
        }),
      )
      .then((message) => {
        this.reading = false;
        this.last = message;
        for (const subscriber of this.subscribers) subscriber.send(message);
        if (this.subscribers.size > 0)
          this.timer = setTimeout(() => this.poll(), this.options.intervalMs).unref();
      });
  }
}

import { SharedTurnWatch, type TurnSubscriber } from './shared-turn-watch';
import type { TurnWatchSource } from './turn-watch-source';

/**
 * The live feeds of the turns being viewed, one `SharedTurnWatch` per turn however many viewers
 * it has. A finished turn's feed is kept for `lingerMs`, so viewers that open it meanwhile are
 * answered from memory instead of reading the journal again.
 */
export class TurnWatchHub {
  private readonly watches = new Map<string, SharedTurnWatch>();

  constructor(
    private readonly options: { source: TurnWatchSource; stateIntervalMs?: number; lingerMs?: number },
  ) {}

  subscribe({
    turnId,
    after,
    subscriber,
    running,
  }: {
    turnId: string;
    after: number;
    subscriber: TurnSubscriber;
    /** Whether the turn runs (then its state is read as entries come). */
    running: boolean;
  }): () => void {
    let watch = this.watches.get(turnId);
    if (!watch?.usable) {
      const lingerMs = this.options.lingerMs ?? 10_000;
      const created: SharedTurnWatch = new SharedTurnWatch({
        turnId,
        source: this.options.source,
        stateIntervalMs: this.options.stateIntervalMs ?? 250,
        queryState: running,
        lingerMs,
        onDone: () => {
          setTimeout(() => {
            if (this.watches.get(turnId) === created) this.watches.delete(turnId);
          }, lingerMs).unref();
        },
      });
      watch = created;
      this.watches.set(turnId, watch);
    }
    return watch.subscribe({ subscriber, after });
  }

  /** Turns watched now, and their viewers (for tests and the health of the dashboard itself). */
  get open(): { turnId: string; viewers: number }[] {
    return [...this.watches].map(([turnId, watch]) => ({ turnId, viewers: watch.viewers }));
  }

  close(): void {
    for (const watch of this.watches.values()) watch.stop();
    this.watches.clear();
  }
}

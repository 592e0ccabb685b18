import {
  type ConversationState,
  type ConversationWatchEvent,
  type ConversationWatchOptions,
  followConversation,
  type TurnWatchEvent,
} from '../../core';

/** Who waits for the conversations held here to change: `idle`, and a watch between turns. */
export class ChangeWaiters {
  private readonly waiting = new Set<() => void>();
  /** Grows by one at every change: a waiter that saw version N and missed a change learns of it. */
  version = 0;

  /** Tells everyone waiting that something changed. */
  notify(): void {
    this.version += 1;
    for (const look of [...this.waiting]) look();
  }

  /** Resolves once `ready()` is true, asking now and at every change; rejects with what it throws. */
  until(ready: () => boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      const look = () => {
        let done: boolean;
        try {
          done = ready();
        } catch (error) {
          this.waiting.delete(look);
          reject(error);
          return;
        }
        if (!done) return;
        this.waiting.delete(look);
        resolve();
      };
      this.waiting.add(look);
      look();
    });
  }

  /** Resolves at the next change after version `seen` (at once if there was one), or when `signal` aborts. */
  next(signal: AbortSignal | undefined, seen: number): Promise<void> {
    if (signal?.aborted || this.version !== seen) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.waiting.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      this.waiting.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /**
   * A conversation's turns' events across turn boundaries (see `followConversation`), looking again
   * at each change here: what `InProcessConversations.watch` gives.
   */
  follow(
    conversationId: string,
    { fromTurn, live = true, signal }: ConversationWatchOptions,
    host: {
      state: () => Promise<ConversationState>;
      watchTurn: (turnId: string, live: boolean) => AsyncIterable<TurnWatchEvent>;
    },
  ): AsyncGenerator<ConversationWatchEvent> {
    let seen = this.version;
    return followConversation({
      conversationId,
      fromTurn,
      signal,
      look: () => {
        seen = this.version;
        return host.state();
      },
      waitForChange: () => this.next(signal, seen),
      watchTurn: (turnId) => host.watchTurn(turnId, live),
    });
  }
}

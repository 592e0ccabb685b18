import { CancellationScope } from '@temporalio/workflow';
// The SDK's own way to keep its bookkeeping promises out of the `__stack_trace` query (as
// `condition` does with its cancellation handler): not in its index, so from its module.
import { untrackPromise } from '@temporalio/workflow/lib/stack-helpers';
import type { HostEvent } from '../core';

/** Where the turn's handlers and activities put what happened, for the workflow's loop to feed. */
export interface HostEventSink {
  push(event: HostEvent): void;
}

/**
 * The host events not yet fed to the engine, and a way for the workflow's loop to wait for the
 * next one without `condition`. A condition is looked at only after the activation's microtasks
 * have run, in one more call into the sandbox, and costs the SDK four promises, each with a stack
 * trace captured; `arrival()` resolves from `push` itself. One waiter at a time: the loop. A cancel
 * of the turn rejects it (and every later one), as it rejects a condition in a cancellable scope.
 */
export class HostEventQueue implements HostEventSink {
  private events: HostEvent[] = [];
  private waiter: { resolve: () => void; reject: (error: unknown) => void } | undefined;
  private cancelled: { error: unknown } | undefined;

  /** Made in the workflow's root scope: a cancel of the turn rejects the wait, as a condition's. */
  constructor() {
    // Pending for the whole run: a stack trace of the turn must show where it waits, not this.
    untrackPromise(
      CancellationScope.current().cancelRequested.catch((error: unknown) => {
        this.cancelled = { error };
        const waiter = this.waiter;
        this.waiter = undefined;
        waiter?.reject(error);
      }),
    );
  }

  push(event: HostEvent): void {
    this.events.push(event);
    this.wake();
  }

  get length(): number {
    return this.events.length;
  }

  /** Everything queued so far, in order; the queue is left empty. */
  take(): HostEvent[] {
    const taken = this.events;
    this.events = [];
    return taken;
  }

  /** Resolves at the next `push` (or `wake`); at once if something is queued. */
  arrival(): Promise<void> {
    if (this.cancelled) return Promise.reject(this.cancelled.error);
    if (this.events.length > 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  /** Lets the waiting loop go on without an event (it looks again at what it waits for). */
  wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.resolve();
  }
}

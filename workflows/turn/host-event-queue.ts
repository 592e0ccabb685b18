import { CancellationScope } from '@temporalio/workflow';
// The SDK's own way to keep its bookkeeping promises out of the `__stack_trace` query (as
// `condition` does with its cancellation handler): not in its index, so from its module.
import { untrackPromise } from '@temporalio/workflow/lib/stack-helpers';
import type { HostEvent } from '../../core';

/** Where the turn's handlers and activities put what happened, for the workflow's loop to feed. */
export interface HostEventSink {
  push(event: HostEvent): void;
  /** How a tool attempt's outcome is queued: it may carry the parked loop on (see `park`). */
  pushAttemptEnded(event: HostEvent): void;
  /** What waits to be fed, oldest first (an update's validator refuses a second decision on a call). */
  queued(): readonly HostEvent[];
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
  private parked:
    | {
        resume: () => unknown;
        resolve: (handed: { value: unknown } | undefined) => void;
        reject: (error: unknown) => void;
      }
    | undefined;
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
        const parked = this.parked;
        this.parked = undefined;
        parked?.reject(error);
      }),
    );
  }

  push(event: HostEvent): void {
    this.events.push(event);
    this.wake();
  }

  queued(): readonly HostEvent[] {
    return this.events;
  }

  /**
   * An attempt's outcome: queued, and if the loop is parked, the loop's step run here and now, in
   * the attempt's own callback — no promise of the loop's per call (see `park`).
   */
  pushAttemptEnded(event: HostEvent): void {
    this.events.push(event);
    const parked = this.parked;
    if (!parked) {
      this.wake();
      return;
    }
    this.parked = undefined;
    let handed: unknown;
    try {
      handed = parked.resume();
    } catch (error) {
      parked.reject(error);
      return;
    }
    if (handed === undefined) this.parked = parked;
    else parked.resolve({ value: handed });
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

  /**
   * Parks the loop until something is queued, like `arrival()`, but an attempt's outcome does not
   * wake the loop: it runs `resume` (the loop's synchronous step: feed, decide, launch) in the
   * attempt's callback, which either parks again (returns undefined) or hands the loop an
   * operation to carry out, which this resolves with. A tool-heavy turn's calls then cost the
   * workflow no promise of its own but the attempt's `then`, where `arrival()` and the loop's
   * `await` cost two more each call, each with a stack trace the SDK captures (~50 µs a promise
   * here, docs/architecture.md). Anything else queued (a handler's event, `wake`) resolves with
   * undefined: the loop goes on itself. A cancel of the turn rejects it, as it rejects `arrival()`.
   */
  park<T>(resume: () => T | undefined): Promise<{ value: T } | undefined> {
    if (this.cancelled) return Promise.reject(this.cancelled.error);
    if (this.events.length > 0) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      this.parked = { resume, resolve: resolve as (handed: { value: unknown } | undefined) => void, reject };
    });
  }

  /** Lets the waiting loop go on without an event (it looks again at what it waits for). */
  wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.resolve();
    const parked = this.parked;
    this.parked = undefined;
    parked?.resolve(undefined);
  }
}

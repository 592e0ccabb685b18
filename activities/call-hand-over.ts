import type { PreparedCall } from '../core';

/**
 * Sends calls in order, one send at a time: a call pushed while a send is in flight waits and goes
 * with the others that queued up meanwhile. `close` says the stream has ended: calls not sent by
 * then are not sent at all (they travel with the response, which costs the turn no extra workflow
 * task). `drain` waits until the sending has stopped and rethrows a failed send.
 */
export class CallHandOver {
  private readonly queue: PreparedCall[] = [];
  private sending: Promise<void> | undefined;
  private failure: unknown;
  private batches = 0;
  private closed = false;

  constructor(private readonly send: (calls: PreparedCall[], batch: number) => Promise<void>) {}

  push(call: PreparedCall): void {
    this.queue.push(call);
    this.sending ??= this.flush();
  }

  /** Lets the calls of a burst (parts parsed in the same tick) queue up before the first send. */
  private static nextTick(): Promise<void> {
    return new Promise((resolve) => setImmediate(resolve));
  }

  /** No more sends: what is queued now is never sent. A send in flight finishes. */
  close(): void {
    this.closed = true;
  }

  async drain(): Promise<void> {
    while (this.sending) await this.sending;
    if (this.failure !== undefined) throw this.failure;
  }

  private async flush(): Promise<void> {
    try {
      await CallHandOver.nextTick();
      while (this.queue.length > 0 && this.failure === undefined && !this.closed) {
        const calls = this.queue.splice(0);
        await this.send(calls, this.batches++);
      }
    } catch (error) {
      this.failure = error;
    } finally {
      this.sending = undefined;
    }
  }
}

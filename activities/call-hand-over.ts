import type { PreparedCall } from '../core';

/**
 * Sends calls in order, one send at a time: a call pushed while a send is in flight waits and goes
 * with the others that queued up meanwhile. `drain` waits until everything pushed was sent and
 * rethrows a failed send.
 */
export class CallHandOver {
  private readonly queue: PreparedCall[] = [];
  private sending: Promise<void> | undefined;
  private failure: unknown;
  private batches = 0;

  constructor(private readonly send: (calls: PreparedCall[], batch: number) => Promise<void>) {}

  push(call: PreparedCall): void {
    this.queue.push(call);
    this.sending ??= this.flush();
  }

  /** Lets the calls of a burst (parts parsed in the same tick) queue up before the first send. */
  private static nextTick(): Promise<void> {
    return new Promise((resolve) => setImmediate(resolve));
  }

  async drain(): Promise<void> {
    while (this.sending) await this.sending;
    if (this.failure !== undefined) throw this.failure;
  }

  private async flush(): Promise<void> {
    try {
      await CallHandOver.nextTick();
      while (this.queue.length > 0 && this.failure === undefined) {
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

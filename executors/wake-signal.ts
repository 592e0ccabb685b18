/**
 * Lets the driving loop sleep until something happens (a tool finished, an approval came, the
 * turn was cancelled) or a deadline passes. A notification that arrives while nobody waits is kept.
 */
export class WakeSignal {
  private pending = false;
  private waiter?: () => void;

  notify(): void {
    this.pending = true;
    this.waiter?.();
  }

  wait(timeoutMs?: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = timeoutMs === undefined ? undefined : setTimeout(done, Math.max(0, timeoutMs));
      const self = this;
      function done() {
        if (timer !== undefined) clearTimeout(timer);
        self.waiter = undefined;
        self.pending = false;
        resolve();
      }
      this.waiter = done;
    });
  }
}

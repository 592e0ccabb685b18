import type { ToolSessions } from '../../contract/turn-workflow';

/**
 * Which worker holds a conversation's sessions with session-keeping servers (`CallPolicy.session`),
 * as a turn's workflow knows it. `queue` is where session calls are sent (a worker's own queue);
 * `current` is the worker whose sessions hold the latest state — the one the last call ran on —
 * which stays known when `queue` is dropped (that worker did not take a call in time: busy, or
 * gone), so that a worker asked later can tell whether the session it has is that one.
 *
 * Answers are taken in launch order: a call launched before the holder last changed (say a long
 * call on the old holder that finishes after another call moved on) does not move it back.
 */
export class SessionHolder {
  private queue: string | undefined;
  private current: string | undefined;
  private epoch = 0;
  private readonly opened: Set<string>;

  constructor(carried: ToolSessions | undefined) {
    this.queue = carried?.queue;
    this.current = carried?.current ?? carried?.queue;
    this.opened = new Set(carried?.opened ?? []);
  }

  /** Where a session call goes now (undefined: any worker), and what its worker is told. */
  launch(): { pinnedTo: string | undefined; epoch: number; opened: string[]; holder: string | undefined } {
    return { pinnedTo: this.queue, epoch: this.epoch, opened: [...this.opened], holder: this.current };
  }

  /** A session call launched at `epoch` ran on the worker whose queue is `ranOn`, reaching `server`. */
  ran({ epoch, ranOn, server }: { epoch: number; ranOn: string; server: string }): void {
    this.opened.add(server);
    if (epoch !== this.epoch) return;
    this.current = ranOn;
    if (this.queue !== ranOn) {
      this.queue = ranOn;
      this.epoch += 1;
    }
  }

  /** The worker behind `queue` did not take (or finish) a call in time: calls go to any worker. */
  gone(queue: string): void {
    if (this.queue !== queue) return;
    this.queue = undefined;
    this.epoch += 1;
  }

  /** What the turn's next run, or its conversation's next turn, carries on. */
  get carried(): ToolSessions | undefined {
    if (this.queue === undefined && this.current === undefined && this.opened.size === 0) return undefined;
    return {
      ...(this.queue ? { queue: this.queue } : {}),
      ...(this.current ? { current: this.current } : {}),
      opened: [...this.opened],
    };
  }
}

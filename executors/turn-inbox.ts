import type { HostEvent } from '../core';

/**
 * What a caller sends a turn this executor is running (a steer): the turn's drive loop takes it as a
 * host event, in order. What arrives before the loop is ready waits here.
 */
export class TurnInbox {
  private deliver?: (event: HostEvent) => void;
  private readonly early: HostEvent[] = [];

  send(event: HostEvent): void {
    if (this.deliver) this.deliver(event);
    else this.early.push(event);
  }

  attach(deliver: (event: HostEvent) => void): void {
    this.deliver = deliver;
    for (const event of this.early.splice(0)) deliver(event);
  }
}

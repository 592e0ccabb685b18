import type { ApprovalEvent, HostEvent } from '../core';

/**
 * What a caller sends a turn this executor is running (a steer, a grant): the turn's drive loop
 * takes it as a host event, in order. What arrives before the loop is ready waits here.
 */
export class TurnInbox {
  private deliver?: (event: HostEvent) => void;
  private check?: (event: ApprovalEvent) => string | undefined;
  private readonly early: HostEvent[] = [];

  send(event: HostEvent): void {
    if (this.deliver) this.deliver(event);
    else this.early.push(event);
  }

  /** Sends it if the turn takes it now (see `checkApprovalEvent`); throws the turn's refusal otherwise. */
  sendChecked(event: ApprovalEvent): void {
    const refused = this.check?.(event);
    if (refused !== undefined) throw new Error(refused);
    this.send(event);
  }

  attach(deliver: (event: HostEvent) => void, check?: (event: ApprovalEvent) => string | undefined): void {
    this.deliver = deliver;
    if (check) this.check = check;
    for (const event of this.early.splice(0)) deliver(event);
  }
}

import type { ChatDecision } from '../../core';
import type { Approver } from '../turn-host';

type Decision = { approved: boolean; reason?: string; via: 'chat' };

/**
 * Approvals decided on a chat page, for the in-process executor (pass `approver` to it): a call
 * that needs approval waits here until `decide` answers it. A decision that comes before the
 * engine asks (the page saw the request in the journal first) is kept for the ask (the last 1,000).
 * Pending asks live in this process: after a restart the resumed turn asks again.
 */
export class ChatApprovals {
  private readonly waiting = new Map<string, (decision: Decision) => void>();
  private readonly early = new Map<string, Decision>();

  readonly approver: Approver = ({ turnId, toolCallId }) => {
    const key = keyOf(turnId, toolCallId);
    const decided = this.early.get(key);
    if (decided) {
      this.early.delete(key);
      return Promise.resolve(decided);
    }
    return new Promise((resolve) => this.waiting.set(key, resolve));
  };

  decide(turnId: string, { toolCallId, approved, reason }: ChatDecision): 'recorded' {
    const key = keyOf(turnId, toolCallId);
    const decision: Decision = { approved, via: 'chat', ...(reason !== undefined ? { reason } : {}) };
    const waiting = this.waiting.get(key);
    if (waiting) {
      this.waiting.delete(key);
      waiting(decision);
      return 'recorded';
    }
    this.early.set(key, decision);
    for (const [old] of this.early) {
      if (this.early.size <= 1_000) break;
      this.early.delete(old);
    }
    return 'recorded';
  }
}

const keyOf = (turnId: string, toolCallId: string) => JSON.stringify([turnId, toolCallId]);

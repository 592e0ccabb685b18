import type { WorkflowHandle } from '@temporalio/client';
import type { TurnResult, TurnStateView } from '../core';
import { approvalSchema, approveUpdate, stateQuery } from '../workflows/definitions';

/** One turn on Temporal, as a caller holds it. */
export class TurnHandle {
  constructor(
    readonly turnId: string,
    private readonly workflow: WorkflowHandle,
  ) {}

  /** The turn's result once it ends. A cancelled turn resolves too, with status `cancelled`. */
  result(): Promise<TurnResult> {
    return this.workflow.result() as Promise<TurnResult>;
  }

  /** Asks the turn to stop: open calls get interrupted outputs and the turn ends `cancelled`. */
  async cancel(): Promise<void> {
    await this.workflow.cancel();
  }

  /** What the turn is doing now (phase, wave, each call, usage, budget left). */
  state(): Promise<TurnStateView> {
    return this.workflow.query(stateQuery);
  }

  approve(toolCallId: string, reason?: string): Promise<void> {
    return this.decide({ toolCallId, approved: true, ...(reason ? { reason } : {}) });
  }

  reject(toolCallId: string, reason?: string): Promise<void> {
    return this.decide({ toolCallId, approved: false, ...(reason ? { reason } : {}) });
  }

  private async decide(decision: unknown): Promise<void> {
    const parsed = approvalSchema.safeParse(decision);
    if (!parsed.success)
      throw new Error(
        `malformed approval: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      );
    await this.workflow.executeUpdate(approveUpdate, { args: [parsed.data] });
  }
}

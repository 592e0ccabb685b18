import type { WorkflowHandle } from '@temporalio/client';
import { unpackJson } from '../contract/packed-json';
import type { TurnWorkflowResult } from '../contract/turn-workflow';
import {
  approvalSchema,
  approveUpdate,
  type ProgressEntry,
  progressQuery,
  stateQuery,
} from '../contract/turn-workflow';
import { messagesFromEvents, type TurnResult, type TurnStateView } from '../core';

/** One turn on Temporal, as a caller holds it. */
export class TurnHandle {
  constructor(
    readonly turnId: string,
    private readonly workflow: WorkflowHandle,
  ) {}

  /** The turn's result once it ends. A cancelled turn resolves too, with status `cancelled`. */
  async result(): Promise<TurnResult> {
    return unpackResult((await this.workflow.result()) as TurnWorkflowResult);
  }

  /** Asks the turn to stop: open calls get interrupted outputs and the turn ends `cancelled`. */
  async cancel(): Promise<void> {
    await this.workflow.cancel();
  }

  /** What the turn is doing now (phase, wave, each call, usage, budget left). */
  state(): Promise<TurnStateView> {
    return this.workflow.query(stateQuery);
  }

  /**
   * The turn's progress as it happens: every journal entry (call accepted, attempt started and
   * finished, output recorded, response completed, the end), in order, until the turn ends.
   */
  async *watch({
    intervalMs = 200,
    after = 0,
  }: {
    intervalMs?: number;
    after?: number;
  } = {}): AsyncGenerator<ProgressEntry> {
    let seq = after;
    for (;;) {
      const page = await this.workflow.query(progressQuery, seq);
      for (const item of page.entries) {
        seq = item.seq;
        yield item;
      }
      if (page.entries.length === 0) seq = Math.max(seq, page.lastSeq);
      if (page.finished && seq >= page.lastSeq) return;
      if (page.entries.length === 0) await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
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

/** The workflow's compact result as callers want it: outputs are the tool results of the transcript. */
export function unpackResult(result: TurnWorkflowResult): TurnResult {
  const { packed, ...summary } = result;
  const { events, notices } = unpackJson<{ events: TurnResult['events']; notices: Record<string, string> }>(
    packed,
  );
  const started = events[0];
  const inputLength = started?.type === 'turn.started' ? started.input.length : 0;
  const transcript = messagesFromEvents(events, notices).slice(inputLength);
  const outputs = transcript.flatMap((message) =>
    message.role === 'tool'
      ? message.content.map((part) => ({ toolCallId: part.toolCallId, name: part.toolName, ...part.output }))
      : [],
  );
  return { ...summary, outputs, transcript, events };
}

import type { ToolOutputStatus, TurnEngine } from '../../core';
import { needsApproval } from '../../core/engine/plan-launches';

type CallCount = ToolOutputStatus | 'running' | 'awaiting approval' | 'retry wait' | 'pending';
const countOrder: readonly CallCount[] = [
  'ok',
  'error',
  'interrupted',
  'running',
  'awaiting approval',
  'retry wait',
  'pending',
];

/**
 * The turn's current details for the Temporal Web UI (markdown): the model, the status, what the
 * workflow is doing, and counts of responses, calls by status and tokens. Recorded outputs are
 * counted once each as they come (a cursor over the turn's outputs), so a render costs the open
 * part of the batch, not the whole turn.
 */
export class TurnDetails {
  private counted = 0;
  private readonly recorded: Record<ToolOutputStatus, number> = { ok: 0, error: 0, interrupted: 0 };

  constructor(
    private readonly engine: TurnEngine,
    private readonly model: string,
  ) {}

  render({ phase }: { phase: string }): string {
    const view = this.engine.view;
    for (; this.counted < view.outputs.length; this.counted += 1) {
      const status = view.outputs[this.counted]?.output.status;
      if (status) this.recorded[status] += 1;
    }
    const counts: Record<CallCount, number> = {
      ...this.recorded,
      running: 0,
      'awaiting approval': 0,
      'retry wait': 0,
      pending: 0,
    };
    const batch = view.batch;
    for (let i = batch?.recordedCount ?? 0; batch && i < batch.calls.length; i += 1) {
      const call = batch.calls[i];
      if (!call) continue;
      const count: CallCount = call.final
        ? call.final.status
        : needsApproval(call)
          ? 'awaiting approval'
          : call.phase === 'retry-wait'
            ? 'retry wait'
            : call.phase === 'running'
              ? 'running'
              : 'pending';
      counts[count] += 1;
    }
    const calls = countOrder
      .filter((c) => counts[c] > 0)
      .map((c) => `${counts[c]} ${c}`)
      .join(' · ');
    const status = view.finished?.status ?? (view.halt ? `halting (${view.halt.reason})` : 'running');
    const { usage, modelResponses } = view.spent;
    return [
      `**${this.model}** · ${status} · ${phase}`,
      '',
      `- responses: ${modelResponses}`,
      `- calls: ${calls || 'none yet'}`,
      `- tokens: ${usage.inputTokens} in · ${usage.outputTokens} out`,
    ].join('\n');
  }
}

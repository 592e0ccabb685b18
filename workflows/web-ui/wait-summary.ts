import type { TurnState } from '../../core';
import { callLabel } from './call-label';
import { modelSummary } from './model-summary';

/**
 * What a wait's timer is for, for the Temporal Web UI: the engine asks to wait until `untilMs`
 * for the earliest of a model request's retry, a tool call's retry and an approval's timeout, and
 * this names whichever fall due then, e.g. `retry backoff: read_file c1 (attempt 2)`. It reads
 * only the open part of the batch.
 */
export function waitSummary({
  untilMs,
  view,
  model,
}: {
  untilMs: number;
  view: Readonly<TurnState>;
  model: string;
}): string {
  const parts: string[] = [];
  if (view.modelInFlight && view.modelRetryAt === untilMs) {
    const next = modelSummary({ responseIndex: view.responseIndex, model, attempt: view.modelFailures + 1 });
    parts.push(`retry backoff: ${next}`);
  }
  const retries: string[] = [];
  const approvals: string[] = [];
  const batch = view.batch;
  const approvalMs = view.config.approvals.timeoutMs;
  for (let i = batch?.recordedCount ?? 0; batch && i < batch.calls.length; i += 1) {
    const c = batch.calls[i];
    if (c?.phase === 'retry-wait' && c.retryAt === untilMs)
      retries.push(`${callLabel({ call: c.call })} (attempt ${c.nextAttempt})`);
    else if (
      approvalMs !== undefined &&
      c?.approvalRequestedAt !== undefined &&
      c.approval === undefined &&
      c.approvalRequestedAt + approvalMs === untilMs
    )
      approvals.push(callLabel({ call: c.call }));
  }
  if (retries.length > 0) parts.push(`retry backoff: ${listed(retries)}`);
  if (approvals.length > 0) parts.push(`approval timeout: ${listed(approvals)}`);
  return parts.length > 0 ? parts.join('; ') : 'the turn’s next deadline';
}

/** The first item and how many more: a wave of 50 retries is still one short line. */
function listed(items: readonly string[]): string {
  return items.length === 1 ? (items[0] ?? '') : `${items[0]} and ${items.length - 1} more`;
}

import type { Context } from '@opentelemetry/api';
import type { CompactionCall, HostEvent, Message, TurnEngine } from '../core';
import { requestSummary } from '../models/request-summary';
import { traceModelRequest } from '../tracing/trace-model-request';
import { failureOf } from './call-model-in-process';
import type { TurnHost } from './turn-host';

/**
 * One attempt of a compaction's summary request, bounded by the model's timeout and traced as a
 * model request: its summary or its failure as a host event, or nothing when the turn was
 * cancelled meanwhile.
 */
export async function compactInProcess({
  engine,
  host,
  op,
  signal,
  earlier,
  traceParent,
}: {
  engine: TurnEngine;
  host: TurnHost;
  op: CompactionCall;
  signal?: AbortSignal;
  earlier?: () => Promise<Message[]>;
  /** The turn's span, parent of this request's. */
  traceParent?: Context | undefined;
}): Promise<HostEvent | undefined> {
  const abort = new AbortController();
  const timedOut = new Error(`the summary request timed out after ${op.timeoutMs} ms`);
  const timer = host.timers.setTimeout(() => abort.abort(timedOut), op.timeoutMs);
  const onCancel = () => abort.abort(signal?.reason);
  signal?.addEventListener('abort', onCancel, { once: true });
  const { responseIndex } = engine.view;
  try {
    const { summary, usage } = await traceModelRequest({
      tracing: host.tracing,
      model: host.model.name,
      turnId: engine.turnId,
      responseIndex,
      parent: traceParent,
      run: async ({ input }) =>
        requestSummary({
          model: host.model,
          turnId: engine.turnId,
          responseIndex,
          op,
          earlier: earlier && !op.previous ? await earlier() : [],
          readFiles: host.files.read,
          signal: abort.signal,
          onRequest: input,
        }),
    });
    return { kind: 'compacted', attempt: op.attempt, summary, usage };
  } catch (error) {
    if (signal?.aborted) return undefined;
    const failure =
      abort.signal.reason === timedOut ? { message: timedOut.message, retryable: true } : failureOf(error);
    return { kind: 'compaction-failed', attempt: op.attempt, error: failure };
  } finally {
    host.timers.clearTimeout(timer);
    signal?.removeEventListener('abort', onCancel);
  }
}

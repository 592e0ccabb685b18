import type { Context } from '@opentelemetry/api';
import {
  describeThrown,
  type HostEvent,
  type Message,
  type ModelCall,
  ModelError,
  type ModelFailure,
  type PreparedCall,
  requestContext,
  type TurnEngine,
} from '../core';
import { streamModelResponse } from '../models/stream-model-response';
import { traceModelRequest } from '../tracing/trace-model-request';
import type { TurnHost } from './turn-host';

/**
 * One attempt of a model request, bounded by the operation's timeout: how it went, as a host
 * event for the engine (which decides whether a failure is tried again), or nothing when the
 * turn was cancelled meanwhile. Each call complete in the stream goes to `onToolCall` at once.
 */
export async function callModelInProcess({
  engine,
  host,
  op,
  signal,
  onToolCall,
  traceParent,
  earlier,
}: {
  engine: TurnEngine;
  host: TurnHost;
  op: ModelCall;
  signal?: AbortSignal;
  onToolCall: (call: PreparedCall) => Promise<void>;
  /** The turn's span, parent of this request's. */
  traceParent?: Context | undefined;
  /** Messages sent before the turn's own (see `RunTurnArgs.earlier`). */
  earlier?: () => Promise<Message[]>;
}): Promise<HostEvent | undefined> {
  const priorCallIds = new Set(engine.view.callIds);
  const maxArgumentBytes = engine.view.config.limits.maxArgumentBytes;
  const abort = new AbortController();
  const timedOut = new Error(`the model request timed out after ${op.timeoutMs} ms`);
  const timer = host.timers.setTimeout(() => abort.abort(timedOut), op.timeoutMs);
  const onCancel = () => abort.abort(signal?.reason);
  signal?.addEventListener('abort', onCancel, { once: true });
  try {
    // A compacted request sends the summary in place of the earlier turns. A continued one carries
    // them too: only a model that continues by id sends just what follows the receipt.
    const { messages, continuation } = requestContext({
      messages: op.messages,
      earlier: earlier && !op.compaction ? await earlier() : [],
      compaction: op.compaction,
      continuation: op.continuation,
    });
    const response = await traceModelRequest({
      tracing: host.tracing,
      model: host.model.name,
      turnId: engine.turnId,
      responseIndex: op.responseIndex,
      messages,
      parent: traceParent,
      run: () =>
        streamModelResponse({
          model: host.model,
          registry: host.registry,
          observers: host.observers,
          turnId: engine.turnId,
          responseIndex: op.responseIndex,
          messages,
          readFiles: host.files.read,
          idempotencyKey: op.idempotencyKey,
          continuation,
          output: op.output,
          signal: abort.signal,
          priorCallIds,
          maxArgumentBytes,
          onCall: onToolCall,
          // In process the engine took each call as it came.
          handedOver: (prepared) => prepared.length,
        }),
    });
    return { kind: 'model-responded', response };
  } catch (error) {
    if (signal?.aborted) return undefined;
    return {
      kind: 'model-failed',
      responseIndex: op.responseIndex,
      attempt: op.attempt,
      // A request cut off by its own timeout is transient: another attempt may well go through.
      error:
        abort.signal.reason === timedOut ? { message: timedOut.message, retryable: true } : failureOf(error),
    };
  } finally {
    host.timers.clearTimeout(timer);
    signal?.removeEventListener('abort', onCancel);
  }
}

/** A model's failure as the engine takes it (a request's or a summary request's). */
export function failureOf(error: unknown): ModelFailure {
  if (!ModelError.isInstance(error))
    return { message: describeThrown(error, 'the model').message, retryable: false };
  return {
    message: error.message,
    retryable: error.retryable,
    ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
    ...(error.kind === 'context-overflow' ? { kind: error.kind } : {}),
  };
}

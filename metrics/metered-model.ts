import type { ModelRequest, ModelStreamPart, TurnModel } from '../core/model/turn-model';
import type { Usage } from '../core/schema/usage';
import type { ModelRequestOutcome, TurnMetrics } from './turn-metrics';

/**
 * The same model, with each request (each attempt: the engine retries by asking again) counted,
 * timed from the request to the end of its stream, and its reported tokens added, under the
 * model's name. A stream that ends without a finish counts as an error, as the executors treat it.
 */
export function meteredModel({ model, metrics }: { model: TurnModel; metrics: TurnMetrics }): TurnModel {
  async function* stream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    const started = performance.now();
    let outcome: ModelRequestOutcome | undefined;
    let usage: Usage | undefined;
    try {
      for await (const part of model.stream(request)) {
        if (part.type === 'finish') usage = part.usage;
        yield part;
      }
      outcome = usage ? 'ok' : 'error';
    } finally {
      // Thrown, or left early by the executor (its own timeout, a cancel, a failed hand-over).
      outcome ??= request.signal?.aborted ? 'cancelled' : 'error';
      metrics.recordModelRequest({
        model: model.name,
        outcome,
        durationMs: performance.now() - started,
        ...(usage ? { usage } : {}),
      });
    }
  }
  return { name: model.name, stream };
}

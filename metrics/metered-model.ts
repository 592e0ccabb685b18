import type { ModelRequest, ModelStreamPart, TurnModel } from '../core/model/turn-model';
import type { Usage } from '../core/schema/usage';
import type { ModelRequestOutcome, TurnMetricsRecorder } from './turn-metrics-recorder';

/**
 * The same model, with each request (each attempt: the engine retries by asking again) counted,
 * timed from the request to the end of its stream, and its reported tokens added, under the
 * model's name. A stream that ends without a finish counts as an error, as the executors treat it;
 * one its reader leaves early (a timeout, a cancel, a failed hand-over) as cancelled when the
 * request was aborted, else as an error.
 *
 * A plain iterator rather than an async generator around the model's: a generator adds several
 * promise turns to every part, and a response can have thousands.
 */
export function meteredModel({
  model,
  metrics,
}: {
  model: TurnModel;
  metrics: TurnMetricsRecorder;
}): TurnModel {
  const stream = (request: ModelRequest): AsyncIterable<ModelStreamPart> => ({
    [Symbol.asyncIterator]() {
      const inner = model.stream(request)[Symbol.asyncIterator]();
      const started = performance.now();
      let usage: Usage | undefined;
      let recorded = false;
      const record = (outcome: ModelRequestOutcome) => {
        if (recorded) return;
        recorded = true;
        try {
          metrics.recordModelRequest({
            model: model.name,
            outcome,
            durationMs: performance.now() - started,
            ...(usage ? { usage } : {}),
          });
        } catch {
          // Metrics never break the request they count.
        }
      };
      const stopped = () => record(request.signal?.aborted ? 'cancelled' : 'error');
      // Made once a request, not once a part: a response can have thousands of parts.
      const seen = (result: IteratorResult<ModelStreamPart>) => {
        if (result.done) record(usage ? 'ok' : 'error');
        else if (result.value.type === 'finish') usage = result.value.usage;
        return result;
      };
      const failed = (error: unknown) => {
        stopped();
        throw error;
      };
      return {
        next: () => inner.next().then(seen, failed),
        return: (value?: unknown) => {
          stopped();
          return inner.return
            ? inner.return(value)
            : Promise.resolve({ done: true as const, value: undefined });
        },
      };
    },
  });
  return { name: model.name, stream };
}

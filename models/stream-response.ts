import {
  type CollectedResponse,
  isBlockBoundary,
  ModelError,
  type ModelRequest,
  notifyObservers,
  ResponseCollector,
  type TurnModel,
  type TurnObserver,
} from '../core';
import { unfinishedStreamError } from './classify-provider-error';

/**
 * Runs one model request to the end of its stream, passing text and reasoning deltas to observers
 * unchanged as they arrive. A stream that breaks after some parts (or just stops, without a finish)
 * is not thrown away: the parts received come back with `broken` set once a tool call was among
 * them, because accepted calls stand (a retried request could ask for a different set). Without a
 * call, the failure is thrown, to be retried as a whole when it is retryable.
 */
export async function streamResponse({
  model,
  request,
  observers = [],
  onPart,
}: {
  model: TurnModel;
  request: ModelRequest;
  observers?: readonly TurnObserver[];
  onPart?: (part: Parameters<ResponseCollector['add']>[0]) => unknown;
}): Promise<{ collected: CollectedResponse; broken?: ModelError }> {
  const collector = new ResponseCollector();
  let received = 0;
  try {
    for await (const part of model.stream(request)) {
      // A receipt or a block's start or end is no content: it does not say how far the response got.
      if (part.type !== 'response-id' && !isBlockBoundary(part)) received += 1;
      collector.add(part);
      await onPart?.(part);
      // An empty delta carries only metadata (Anthropic's thinking signature): nothing to show.
      if ((part.type === 'text-delta' || part.type === 'reasoning-delta') && part.delta !== '') {
        notifyObservers(observers, 'onModelDelta', {
          turnId: request.turnId,
          responseIndex: request.responseIndex,
          type: part.type === 'text-delta' ? 'text' : 'reasoning',
          delta: part.delta,
        });
      }
    }
  } catch (error) {
    const modelError = ModelError.isInstance(error)
      ? error
      : new ModelError(error instanceof Error ? error.message : String(error), false);
    // No tool call arrived: nothing was accepted, so the request may be retried as a whole.
    if (received === 0 || request.signal?.aborted || collector.result().calls.length === 0) throw modelError;
    return { collected: collector.result(), broken: modelError };
  }
  const collected = collector.result();
  if (collected.complete) return { collected };
  // Cut short as surely as by a reset (adapters for real providers already say so themselves):
  // retried the same way, and the accepted calls stand the same way.
  const unfinished = unfinishedStreamError({ provider: model.name, partsReceived: received });
  if (collected.calls.length === 0) throw unfinished;
  return { collected, broken: unfinished };
}

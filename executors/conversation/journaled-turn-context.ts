import { noticesOf, type TurnContext, turnContext } from '../../core';
import type { InProcessExecutor } from '../in-process-executor';

/**
 * An ended turn as later requests of its conversation send it, read from the journal. A turn that
 * never finished (its host was lost for good) left nothing to send.
 */
export async function journaledTurnContext(
  executor: InProcessExecutor,
  turnId: string,
): Promise<TurnContext> {
  const result = await executor.finishedResult(turnId);
  return result
    ? turnContext(result.events, noticesOf(result.outputs))
    : { messages: [], replacesEarlier: false };
}

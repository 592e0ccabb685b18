import type { Message } from '../schema/messages';
import type { ModelRequest } from './turn-model';

/** What a request carries for a stateful continuation: the messages after the receipt's response. */
export function continuationOf(
  messages: readonly Message[],
  continuation: { previousResponseId: string; fromMessage: number } | undefined,
): Pick<ModelRequest, 'continuation'> {
  if (!continuation) return {};
  return {
    continuation: {
      previousResponseId: continuation.previousResponseId,
      messages: messages.slice(continuation.fromMessage),
    },
  };
}

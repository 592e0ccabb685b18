import type { TurnModel } from 'durable-turns';
import { chatModel } from '../../examples/chat/chat-agent';

/**
 * The chat example's model, for tests: an answer to a message that says "hold" stops after its
 * third word until `held()` resolves (so a page can go away mid-answer however fast the machine),
 * and each response's first text is reported with the time it was yielded.
 */
export function heldChatModel({
  wordDelayMs,
  held,
  onFirstText,
}: {
  wordDelayMs: number;
  held: () => Promise<void>;
  onFirstText?: (turnId: string, at: number) => void;
}): TurnModel {
  const inner = chatModel({ wordDelayMs });
  return {
    name: inner.name,
    async *stream(request) {
      const last = request.messages[request.messages.length - 1];
      const hold = last?.role === 'user' && JSON.stringify(last.content).includes('hold');
      let words = 0;
      for await (const part of inner.stream(request)) {
        if (part.type === 'text-delta' && words === 0) onFirstText?.(request.turnId, Date.now());
        yield part;
        if (part.type === 'text-delta' && ++words === 3 && hold) await held();
      }
    },
  };
}

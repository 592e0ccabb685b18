import type { UIMessage, UIMessageChunk } from 'ai';
import type { ChatConversations, Message, TurnWatchEvent } from '../core';
import { loadAiSdk } from './load-ai-sdk';
import { turnUiChunks } from './turn-ui-chunks';

/**
 * A chat's messages so far, as `useChat` holds them: each turn's user messages, then its assistant
 * message made from the turn's record, as its stream made it; the running turn's only its user
 * messages (its message comes by resuming the stream).
 */
export async function chatMessages(
  conversations: ChatConversations,
  chatId: string,
  signal: AbortSignal,
): Promise<UIMessage[]> {
  // The turns first: one that starts after is not in the list; one that ends after is read whole.
  const turns = await conversations.turns(chatId);
  const running = await conversations.runningTurn(chatId);
  const messages: UIMessage[] = [];
  for (const turnId of turns) {
    const stop = new AbortController();
    const abort = () => stop.abort();
    signal.addEventListener('abort', abort, { once: true });
    try {
      const events = conversations.watch(turnId, stop.signal);
      const { input, rest } = await turnInput(events);
      messages.push(...userMessages(turnId, input));
      if (turnId === running) continue;
      messages.push(await assistantMessage(turnId, rest));
    } finally {
      stop.abort();
      signal.removeEventListener('abort', abort);
    }
  }
  return messages;
}

/** The turn's input (its first entry) and its watch from there, first entry included. */
async function turnInput(events: AsyncIterable<TurnWatchEvent>) {
  const iterator = events[Symbol.asyncIterator]();
  const first = await iterator.next();
  const input =
    !first.done && first.value.kind === 'entry' && first.value.entry.type === 'turn.started'
      ? first.value.entry.input
      : [];
  async function* rest(): AsyncGenerator<TurnWatchEvent> {
    if (!first.done) yield first.value;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return { input, rest: rest() };
}

function userMessages(turnId: string, input: readonly Message[]): UIMessage[] {
  return input.flatMap((message, index) => {
    if (message.role !== 'user') return [];
    const texts =
      typeof message.content === 'string'
        ? [message.content]
        : message.content.flatMap((part) => (part.type === 'text' ? [part.text] : []));
    return [
      {
        id: `${turnId}/user-${index}`,
        role: 'user' as const,
        parts: texts.map((text) => ({ type: 'text' as const, text })),
      },
    ];
  });
}

async function assistantMessage(turnId: string, events: AsyncIterable<TurnWatchEvent>): Promise<UIMessage> {
  const chunks = turnUiChunks(events, { messageId: turnId });
  const stream = new ReadableStream<UIMessageChunk>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value as UIMessageChunk);
    },
  });
  let message: UIMessage = { id: turnId, role: 'assistant', parts: [] };
  for await (const snapshot of loadAiSdk().readUIMessageStream({ stream })) message = snapshot;
  return message;
}

import type { UIMessage, UIMessageChunk } from 'ai';
import { loadAiSdk } from './load-ai-sdk';

/**
 * What a `useChat` client makes of a UI message stream response, read with the AI SDK's own
 * client-side code: its SSE parser and `readUIMessageStream`. `stopAfter` chunks, then the
 * response is dropped (a page reloaded mid-turn). For tests and the example.
 */
export async function readUiMessage(
  response: Response,
  { stopAfter }: { stopAfter?: number } = {},
): Promise<{ message: UIMessage | undefined; chunks: UIMessageChunk[] }> {
  if (!response.body) throw new Error('the response has no body');
  const { parseJsonEventStream, readUIMessageStream, uiMessageChunkSchema } = loadAiSdk();
  const parsed = parseJsonEventStream({ stream: response.body, schema: uiMessageChunkSchema });
  const chunks: UIMessageChunk[] = [];
  const reader = parsed.getReader();
  const stream = new ReadableStream<UIMessageChunk>({
    async pull(controller) {
      if (stopAfter !== undefined && chunks.length >= stopAfter) {
        await reader.cancel();
        controller.close();
        return;
      }
      const next = await reader.read();
      if (next.done) return controller.close();
      if (!next.value.success) return controller.error(next.value.error);
      chunks.push(next.value.value);
      controller.enqueue(next.value.value);
    },
  });
  let message: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream })) message = snapshot;
  return { message, chunks };
}

/**
 * The message's parts as a person sees them: each `data-retracted` part hides the last text or
 * reasoning part (its `channel`) before it, and is itself not shown.
 */
export function visibleParts(message: UIMessage): UIMessage['parts'] {
  const hidden = new Set<number>();
  message.parts.forEach((part, index) => {
    if (part.type !== 'data-retracted') return;
    hidden.add(index);
    const { channel } = part.data as { channel: 'text' | 'reasoning' };
    for (let before = index - 1; before >= 0; before--) {
      if (message.parts[before]?.type === channel && !hidden.has(before)) {
        hidden.add(before);
        break;
      }
    }
  });
  return message.parts.filter((_, index) => !hidden.has(index));
}

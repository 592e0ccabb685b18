/**
 * The conversation that conversation-crash-child.ts drives until it is killed and
 * in-process-conversation-resume.test.ts carries on: both build it from here, so the dead host and
 * the recovering one have the same tools and model.
 *
 * Message `m1` ("hello") is answered at once. Message `m2` ("wait") makes the model call `slow` (not
 * retry-safe), which runs for minutes on the dying host; message `m3` ("after that") is queued
 * behind it. Every answer names the user message it answers.
 */
import { defineTool, type ModelRequest, type ScriptedModel, scriptedModel } from 'durable-turns';
import { z } from 'zod';

export const crashedConversationOwner = 'crashed-conversation-host';

export function conversationCrashTools({ slowMs, onStart }: { slowMs: number; onStart?: () => void }) {
  return [
    defineTool({
      name: 'slow',
      description: 'Takes a long time, with an effect that must not happen twice',
      input: z.object({}),
      execute: async (_args, { signal }) => {
        onStart?.();
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, slowMs);
          signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
        });
        return 'slow done';
      },
    }),
  ];
}

const lastUserText = (request: ModelRequest) =>
  [...request.messages].reverse().find((m) => m.role === 'user')?.content as string;

export function conversationCrashModel(): ScriptedModel {
  return scriptedModel([
    (request) =>
      lastUserText(request) === 'wait'
        ? { toolCalls: [{ id: 'slow-call', name: 'slow', args: {} }] }
        : { text: `answer to ${lastUserText(request)}` },
    (request) => ({ text: `after the call, answer to ${lastUserText(request)}` }),
  ]);
}

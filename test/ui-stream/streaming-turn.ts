import type { UIMessage } from 'ai';
import { defineTool, type ScriptedStep } from 'durable-turns';
import { z } from 'zod';
import { visibleParts } from '../../ui-stream/read-ui-message';

/** A tool and a script for a turn that streams its first answer in pieces, reads a file, and answers again. */
export const read = defineTool({
  name: 'read_file',
  description: 'Reads a file',
  input: z.object({ path: z.string() }),
  concurrencySafe: true,
  execute: async ({ path }) => `contents of ${path}`,
});

export function streamingScript(pause = 40): ScriptedStep[] {
  return [
    {
      parts: [
        { type: 'reasoning-start', id: 'r' },
        { type: 'reasoning-delta', id: 'r', delta: 'The user wants a file.', delayMs: pause },
        { type: 'reasoning-end', id: 'r' },
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Let me ', delayMs: pause },
        { type: 'text-delta', id: 't', delta: 'read ', delayMs: pause },
        { type: 'text-delta', id: 't', delta: 'it.', delayMs: pause },
        { type: 'text-end', id: 't' },
        {
          type: 'tool-call',
          toolCallId: 'c1',
          toolName: 'read_file',
          input: '{"path":"a.txt"}',
          delayMs: pause,
        },
        { type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 1, outputTokens: 1 } },
      ],
    },
    { text: 'It says: contents of a.txt.' },
  ];
}

/** The parts a person sees, without the stream's bookkeeping (data parts). */
export const shown = (message: UIMessage | undefined) =>
  visibleParts(message ?? { id: '', role: 'assistant', parts: [] })
    .filter((part) => !part.type.startsWith('data-'))
    .map((part) => {
      if (part.type === 'text' || part.type === 'reasoning') return { type: part.type, text: part.text };
      if (part.type === 'dynamic-tool')
        return {
          type: part.type,
          toolName: part.toolName,
          state: part.state,
          input: part.input,
          output: part.output,
        };
      return { type: part.type };
    });

/** What `shown` gives for the streaming script's turn. */
export const streamingScriptShown = [
  { type: 'step-start' },
  { type: 'reasoning', text: 'The user wants a file.' },
  { type: 'text', text: 'Let me read it.' },
  {
    type: 'dynamic-tool',
    toolName: 'read_file',
    state: 'output-available',
    input: { path: 'a.txt' },
    output: 'contents of a.txt',
  },
  { type: 'step-start' },
  { type: 'text', text: 'It says: contents of a.txt.' },
];

import { z } from 'zod';
import { defineTool, type Message, type ModelRequest, ToolRegistry } from '../../../core';
import { toolSpecs } from '../../../models/tool-specs';

/** The one tool the wire tests offer the model. */
export const readFileTool = defineTool({
  name: 'read_file',
  description: 'Reads a file',
  input: z.object({ path: z.string() }),
  concurrencySafe: true,
  execute: ({ path }) => `contents of ${path}`,
});

export const wireRegistry = new ToolRegistry([readFileTool]);

/** A transcript with every message kind, including an earlier call and its result. */
export const transcriptWithToolResult: Message[] = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'Read a.txt' },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Reading it.' },
      { type: 'tool-call', toolCallId: 'call_1', toolName: 'read_file', input: { path: 'a.txt' } },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'call_1',
        toolName: 'read_file',
        output: { status: 'ok', content: { text: 'hello' }, attempts: 1 },
      },
    ],
  },
];

/** A model request for response 0 of turn `t1`, with the read_file tool on offer. */
export function wireRequest(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    turnId: 't1',
    responseIndex: 0,
    messages: [{ role: 'user', content: 'Read a.txt' }],
    tools: toolSpecs(wireRegistry),
    idempotencyKey: 't1/model/0',
    ...overrides,
  };
}

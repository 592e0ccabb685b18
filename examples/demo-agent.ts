import { z } from 'zod';
import { defineTool, type ModelRequest } from '../core';
import { scriptedModel } from '../models';

/**
 * The demo's agent: a tiny notes workspace and a scripted model (no API key needed) that reads
 * three notes at once (one wave), writes a summary (a barrier), reads it back, and answers.
 */
const workspace = new Map<string, string>([
  ['notes/monday.md', 'Shipped the wave planner. Reads share a wave unless they touch the same file.'],
  ['notes/tuesday.md', 'Killed a worker mid-wave: the retry-safe call re-ran with the same idempotency key.'],
  [
    'notes/wednesday.md',
    'Cancelled a turn: every open call got an interrupted output, the transcript stayed valid.',
  ],
]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const demoTools = [
  defineTool({
    name: 'read_file',
    description: 'Reads a note from the workspace',
    input: z.object({ path: z.string() }),
    concurrencySafe: true,
    resources: ({ path }) => [`file:${path}`],
    retrySafe: true,
    execute: async ({ path }) => {
      await sleep(300);
      const text = workspace.get(path);
      if (text === undefined)
        throw new Error(`no such file: ${path}; files: ${[...workspace.keys()].join(', ')}`);
      return text;
    },
  }),
  defineTool({
    name: 'write_file',
    description: 'Writes a note to the workspace',
    input: z.object({ path: z.string(), content: z.string() }),
    resources: ({ path }) => [`file:${path}`],
    execute: async ({ path, content }, ctx) => {
      await sleep(200);
      workspace.set(path, content);
      return { written: path, bytes: content.length, idempotencyKey: ctx.idempotencyKey };
    },
  }),
];

function summarize(request: ModelRequest): string {
  const results = request.messages.flatMap((m) => (m.role === 'tool' ? m.content : []));
  const notes = results
    .filter((r) => r.toolName === 'read_file' && r.output.status === 'ok')
    .map((r) => `- ${String(r.output.content)}`);
  return notes.slice(0, 3).join('\n');
}

export const demoModel = scriptedModel(
  [
    {
      reasoning: 'Three independent reads: they can run as one wave.',
      text: 'Reading the week’s notes.',
      toolCalls: [
        { id: 'read_mon', name: 'read_file', args: { path: 'notes/monday.md' } },
        { id: 'read_tue', name: 'read_file', args: { path: 'notes/tuesday.md' } },
        { id: 'read_wed', name: 'read_file', args: { path: 'notes/wednesday.md' } },
      ],
      usage: { inputTokens: 120, outputTokens: 40 },
    },
    (request) => ({
      text: 'Writing the summary, then reading it back (the write is a barrier).',
      toolCalls: [
        {
          id: 'write_summary',
          name: 'write_file',
          args: { path: 'notes/summary.md', content: summarize(request) },
        },
        { id: 'read_summary', name: 'read_file', args: { path: 'notes/summary.md' } },
      ],
      usage: { inputTokens: 260, outputTokens: 90 },
    }),
    (request) => ({
      text: `This week, in three lines:\n${summarize(request)}`,
      usage: { inputTokens: 410, outputTokens: 60 },
    }),
  ],
  'demo-scripted',
);

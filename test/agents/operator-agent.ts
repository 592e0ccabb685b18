/**
 * The agent the operator-facing tests (the CLI, the dashboard's API and pages) run in a real worker
 * process (`durable-turns worker --agent` this file). What a test must see happen *while* it
 * happens waits on a gate the test opens — a file named `<turnId>.<gate>` in the folder
 * `DURABLE_TURNS_TEST_GATES` names — so no test guesses how long a call or a stream takes.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { defineTool, type ToolContext, type TurnModel, withFiles } from '../../core';
import { scriptedModel } from '../../models';

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

const gatesFolder = () => {
  const dir = process.env.DURABLE_TURNS_TEST_GATES;
  if (!dir) throw new Error('set DURABLE_TURNS_TEST_GATES to the folder whose files open the gates');
  return dir;
};
const gateFile = ({ folder, turnId, gate }: { folder: string; turnId: string; gate: string }) =>
  path.join(folder, `${encodeURIComponent(turnId)}.${gate}`);

/** Opens gate `gate` of turn `turnId` (for the tests: the folder they gave the worker). */
export function openGate({ folder, turnId, gate }: { folder: string; turnId: string; gate: string }): void {
  writeFileSync(gateFile({ folder, turnId, gate }), '');
}

const gateOpen = (turnId: string, gate: string) =>
  existsSync(gateFile({ folder: gatesFolder(), turnId, gate }));

/** Heartbeats until `done()` or the turn is cancelled (then throws, as a cancelled tool does). */
async function holdUntil({ done, ctx }: { done: () => boolean; ctx: ToolContext }): Promise<void> {
  while (!done() && !ctx.signal.aborted) {
    ctx.heartbeat();
    await sleep(100, ctx.signal);
  }
  if (ctx.signal.aborted) throw new Error('stopped: the turn was cancelled');
}

/** Fifteen words, streamed in two halves with the turn's `stream-rest` gate between (`heldStreamingModel`). */
export const streamedWords =
  'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen'.split(' ');

export const tools = [
  defineTool({
    name: 'echo',
    description: 'Echoes its text',
    input: z.object({ text: z.string() }),
    concurrencySafe: true,
    execute: ({ text }) => `echo: ${text}`,
  }),
  defineTool({
    name: 'deploy',
    description: 'Deploys to an environment (a person must approve it)',
    input: z.object({ target: z.string() }),
    requiresApproval: true,
    execute: ({ target }) => `deployed ${target}`,
  }),
  defineTool({
    name: 'wait',
    description: 'Waits, heartbeating, until the time is up or the turn is cancelled',
    input: z.object({ ms: z.number() }),
    execute: async ({ ms }, ctx) => {
      const end = Date.now() + ms;
      await holdUntil({ done: () => Date.now() >= end, ctx });
      return 'waited';
    },
  }),
  defineTool({
    name: 'gate',
    description: 'Holds until its gate opens',
    input: z.object({ name: z.string() }),
    concurrencySafe: true,
    execute: async ({ name }, ctx) => {
      await holdUntil({ done: () => gateOpen(ctx.turnId, name), ctx });
      // A picture of the gate: pages show a file by its kind and size.
      return withFiles(`passed ${name}`, [
        { mediaType: 'image/png', filename: `gate-${name}.png`, data: new Uint8Array(1_200).fill(7) },
      ]);
    },
  }),
  defineTool({
    name: 'step',
    description: 'A step that must run alone; its first attempt fails, the retry succeeds',
    input: z.object({ text: z.string() }),
    retry: { maxAttempts: 3, initialDelayMs: 50 },
    execute: ({ text }, ctx) => {
      if (ctx.attempt === 1) throw new Error('first attempts of a step fail: try again');
      return { stepped: text, padding: 'x'.repeat(400) };
    },
  }),
  defineTool({
    name: 'broken',
    description: 'Always fails',
    input: z.object({ n: z.number() }),
    concurrencySafe: true,
    execute: ({ n }) => {
      throw new Error(`broken ${n}: the backend is down`);
    },
  }),
];

export const models = [
  scriptedModel(
    [
      {
        text: 'Echoing twice.',
        toolCalls: [
          { id: 'echo_a', name: 'echo', args: { text: 'a' } },
          { id: 'echo_b', name: 'echo', args: { text: 'b' } },
        ],
        usage: { inputTokens: 10, outputTokens: 5 },
      },
      { text: 'Both echoes came back.', usage: { inputTokens: 20, outputTokens: 6 } },
    ],
    'quick',
  ),
  scriptedModel(
    [
      {
        text: 'Deploying.',
        toolCalls: [{ id: 'deploy_prod', name: 'deploy', args: { target: 'prod' } }],
        usage: { inputTokens: 12, outputTokens: 3 },
      },
      (request) => {
        const result = request.messages.flatMap((m) => (m.role === 'tool' ? m.content : [])).at(-1);
        return { text: result?.output.status === 'ok' ? 'Deployed to prod.' : 'The deploy was rejected.' };
      },
    ],
    'approval',
  ),
  scriptedModel(
    [
      { text: 'Waiting a minute.', toolCalls: [{ id: 'wait_long', name: 'wait', args: { ms: 60_000 } }] },
      { text: 'Done waiting.' },
    ],
    'slow',
  ),
  scriptedModel(
    [
      {
        text: 'Two gates, then a step.',
        toolCalls: [
          { id: 'gate_a', name: 'gate', args: { name: 'a' } },
          { id: 'gate_b', name: 'gate', args: { name: 'b' } },
          { id: 'step_c', name: 'step', args: { text: 'c' } },
        ],
        usage: { inputTokens: 10, outputTokens: 5 },
      },
      { text: 'All three done.', usage: { inputTokens: 20, outputTokens: 4 } },
    ],
    'waves',
  ),
  scriptedModel(
    [
      {
        text: 'Calling a broken tool six times.',
        toolCalls: [1, 2, 3, 4, 5, 6].map((n) => ({ id: `broken_${n}`, name: 'broken', args: { n } })),
      },
      { text: 'The tool is broken.' },
    ],
    'broken',
  ),
  heldStreamingModel(),
];

/**
 * Streams the first half of `streamedWords`, then holds until the test opens the turn's
 * `stream-rest` gate, then streams the rest: a watcher sees part of the text for as long as the
 * test needs, however slow the machine.
 */
function heldStreamingModel(): TurnModel {
  const half = Math.ceil(streamedWords.length / 2);
  return {
    name: 'streaming',
    async *stream(request) {
      for (const [i, word] of streamedWords.entries()) {
        if (i === half)
          while (!gateOpen(request.turnId, 'stream-rest')) {
            if (request.signal?.aborted) return;
            await sleep(100, request.signal);
          }
        yield { type: 'text-delta', delta: i === 0 ? word : ` ${word}` };
      }
      yield { type: 'finish', finishReason: 'stop', usage: { inputTokens: 5, outputTokens: 15 } };
    },
  };
}

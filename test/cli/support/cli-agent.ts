/**
 * The agent the CLI tests run in a real worker process (`durable-turns worker --agent` this
 * file): a call that needs approval, a slow call to cancel, a quick parallel wave, an answer
 * that streams slowly.
 */
import { z } from 'zod';
import { defineTool } from '../../../core';
import { scriptedModel } from '../../../models';

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/** Fifteen words, one every 200 ms: three seconds of streaming, long enough to watch. */
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
      while (Date.now() < end && !ctx.signal.aborted) {
        ctx.heartbeat();
        await sleep(100, ctx.signal);
      }
      if (ctx.signal.aborted) throw new Error('stopped: the turn was cancelled');
      return 'waited';
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
    'cli-quick',
  ),
  scriptedModel(
    [
      { text: 'Deploying.', toolCalls: [{ id: 'deploy_prod', name: 'deploy', args: { target: 'prod' } }] },
      (request) => {
        const result = request.messages.flatMap((m) => (m.role === 'tool' ? m.content : [])).at(-1);
        return { text: result?.output.status === 'ok' ? 'Deployed to prod.' : 'The deploy was rejected.' };
      },
    ],
    'cli-approval',
  ),
  scriptedModel(
    [
      { text: 'Waiting a minute.', toolCalls: [{ id: 'wait_long', name: 'wait', args: { ms: 60_000 } }] },
      { text: 'Done waiting.' },
    ],
    'cli-slow',
  ),
  scriptedModel(
    [
      {
        parts: [
          ...streamedWords.map((word) => ({ type: 'text-delta' as const, delta: `${word} `, delayMs: 200 })),
          { type: 'finish' as const, finishReason: 'stop', usage: { inputTokens: 5, outputTokens: 15 } },
        ],
      },
    ],
    'cli-streaming',
  ),
];

import { type AnyTool, defineTool } from 'durable-turns';
import { z } from 'zod';

/**
 * The tools of the replay scenarios: the histories in histories/ were recorded with these, and
 * test/temporal/replay.temporal.test.ts runs the same turns live. Shared so the two cannot drift apart.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const work = (ms: number, ctx: { heartbeat(): void; signal: AbortSignal }) =>
  (async () => {
    const end = Date.now() + ms;
    while (Date.now() < end && !ctx.signal.aborted) {
      ctx.heartbeat();
      await sleep(Math.min(50, ms));
    }
    // A tool that stops because of the cancel says so: what it returns is recorded as it is.
    if (ctx.signal.aborted) throw new Error('stopped by the cancel');
  })();

export const read = defineTool({
  name: 'read_file',
  description: 'Reads a file',
  input: z.object({ path: z.string(), ms: z.number().default(50) }),
  concurrencySafe: true,
  resources: ({ path }) => [`file:${path}`],
  execute: async ({ path, ms }, ctx) => {
    await work(ms, ctx);
    return `contents of ${path}`;
  },
});

export const write = defineTool({
  name: 'write_file',
  description: 'Writes a file',
  input: z.object({ path: z.string() }),
  resources: ({ path }) => [`file:${path}`],
  execute: async ({ path }, ctx) => {
    await work(50, ctx);
    return `wrote ${path}`;
  },
});

export const flaky = defineTool({
  name: 'flaky',
  description: 'Fails its first attempt',
  input: z.object({}),
  retry: { maxAttempts: 3, initialDelayMs: 300 },
  execute: (_args, ctx) => {
    if (ctx.attempt === 1) throw new Error('transient failure');
    return `worked on attempt ${ctx.attempt}`;
  },
});

export const deploy = defineTool({
  name: 'deploy',
  description: 'Deploys (needs approval)',
  input: z.object({ target: z.string() }),
  requiresApproval: true,
  execute: ({ target }) => `deployed ${target}`,
});

export const build = defineTool({
  name: 'build',
  description: 'Builds in the background',
  input: z.object({ target: z.string(), ms: z.number().default(300) }),
  concurrencySafe: true,
  background: true,
  execute: async ({ target, ms }, ctx) => {
    await work(ms, ctx);
    return `built ${target}`;
  },
});

export const lookup = defineTool({
  name: 'lookup',
  description: 'A quick lookup (a local activity on Temporal)',
  input: z.object({ key: z.string() }),
  concurrencySafe: true,
  retrySafe: true,
  quick: true,
  timeoutMs: 5_000,
  execute: ({ key }) => `value of ${key}`,
});

/** A quick lookup that is not concurrency-safe: calls of it run one after another, in a chain on Temporal. */
export const lookupInOrder = defineTool({
  name: 'lookup_in_order',
  description: 'A quick lookup that runs after the calls before it',
  input: z.object({ key: z.string() }),
  retrySafe: true,
  quick: true,
  timeoutMs: 5_000,
  execute: ({ key }) => `value of ${key}`,
});

export const replayTools: AnyTool[] = [read, write, flaky, deploy, build, lookup, lookupInOrder];

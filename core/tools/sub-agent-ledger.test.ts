import { z } from 'zod';
import type { AttemptResult } from '../schema/attempt-result';
import { attemptResultSchema } from '../schema/attempt-result';
import { type AnyTool, defineTool, type ToolContext } from './define-tool';
import { evaluatePolicy } from './prepare-call';
import { type HostTimers, NonRetryableToolError, runToolAttempt } from './run-tool-attempt';
import { spentOf } from './sub-agent-ledger';
import type { SubAgentAnswer, SubAgents } from './sub-agents';
import { ToolRegistry } from './tool-registry';

const timers: HostTimers = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** A host whose sub-agent turn `<id>` spent `n` responses, `n` calls and 10·n input tokens, n the id's length. */
const host: SubAgents = {
  run: async ({ turnId }) => answer(turnId.length),
};
function answer(n: number, status: SubAgentAnswer['status'] = 'completed'): SubAgentAnswer {
  return {
    status,
    text: `answer ${n}`,
    usage: { inputTokens: 10 * n, outputTokens: n },
    modelResponses: n,
    toolCalls: n,
  };
}

async function attempt(
  execute: (ctx: ToolContext) => unknown,
  agents: SubAgents | null = host,
): Promise<AttemptResult> {
  const tool: AnyTool = defineTool({
    name: 'agentish',
    description: 'Runs sub-agents',
    input: z.object({}),
    execute: (_args, ctx) => execute(ctx),
  });
  const { result } = await runToolAttempt({
    turnId: 't',
    call: { toolCallId: 'c1', toolName: tool.name, input: {}, policy: evaluatePolicy(tool, {}) },
    attempt: 1,
    registry: new ToolRegistry([tool]),
    timers,
    signal: new AbortController().signal,
    ...(agents ? { agents } : {}),
  } as Parameters<typeof runToolAttempt>[0]);
  return result;
}

const run = (ctx: ToolContext, turnId: string) => {
  if (!ctx.agents) throw new Error('no agents');
  return ctx.agents.run({ turnId, parentTurnId: 't', parentToolCallId: 'c1', input: [] }, ctx.signal);
};

describe('what an attempt’s sub-agents spent', () => {
  it('is recorded by the host as it runs them, and carried on the attempt’s result', async () => {
    const result = await attempt(async (ctx) => (await run(ctx, 'ab')).text);
    expect(result).toEqual({
      status: 'ok',
      content: 'answer 2',
      resultHash: expect.any(String),
      spent: { modelResponses: 2, toolCalls: 2, usage: { inputTokens: 20, outputTokens: 2 } },
    });
    // It is data of the result: it survives the schema (histories, journals, snapshots).
    expect(attemptResultSchema.parse(result)).toEqual(result);
  });

  it('counts the same turn once however often the tool asks for it, and adds different turns', async () => {
    const result = await attempt(async (ctx) => {
      await run(ctx, 'abc');
      await run(ctx, 'abc');
      await run(ctx, 'x');
      return 'done';
    });
    expect(result).toMatchObject({ spent: { modelResponses: 4, toolCalls: 4 } });
  });

  it('is carried on an error too: a sub-agent that ended badly spent what it spent', async () => {
    const result = await attempt(async (ctx) => {
      await run(ctx, 'abc');
      throw new NonRetryableToolError('the sub-agent ended failed');
    });
    expect(result).toMatchObject({ status: 'error', spent: { modelResponses: 3 } });
  });

  it('is absent when the tool ran none, or the host runs none, or the run failed', async () => {
    expect(await attempt(() => 'plain')).not.toHaveProperty('spent');
    expect(await attempt((ctx) => (ctx.agents ? 'has agents' : 'none'), null)).toEqual(
      expect.objectContaining({ content: 'none' }),
    );
    const failing: SubAgents = { run: async () => Promise.reject(new Error('could not start')) };
    const result = await attempt(async (ctx) => run(ctx, 'ab'), failing);
    expect(result).toMatchObject({ status: 'error' });
    expect(result).not.toHaveProperty('spent');
  });

  it('cannot be told by the tool: neither its return value nor its context reaches the record', async () => {
    const result = await attempt(async (ctx) => {
      await run(ctx, 'ab');
      const reachable = Object.values(ctx).filter((v) => v === host);
      return { spent: { modelResponses: 0 }, reachable: reachable.length, args: 'args' in ctx };
    });
    expect(result).toMatchObject({
      content: { spent: { modelResponses: 0 }, reachable: 0, args: false },
      spent: { modelResponses: 2 },
    });
  });

  it('reads an answer without counts (an older host’s) as nothing spent', () => {
    expect(spentOf({})).toEqual({
      modelResponses: 0,
      toolCalls: 0,
      usage: { inputTokens: 0, outputTokens: 0 },
    });
    expect(
      spentOf({ modelResponses: -1, toolCalls: 1.5, usage: { inputTokens: 3, outputTokens: 4 } }),
    ).toEqual({ modelResponses: 0, toolCalls: 0, usage: { inputTokens: 3, outputTokens: 4 } });
  });
});

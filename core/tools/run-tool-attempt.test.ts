import { z } from 'zod';
import type { PreparedCall } from '../schema/prepared-call';
import { defineTool } from './define-tool';
import { onAbort } from './on-abort';
import { evaluatePolicy } from './prepare-call';
import { type HostTimers, runToolAttempt } from './run-tool-attempt';
import { ToolRegistry } from './tool-registry';

const timers: HostTimers = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** A tool that never looks at its signal and never settles by itself. */
const deaf = defineTool({
  name: 'deaf',
  description: 'Ignores its signal',
  input: z.object({}),
  execute: () => new Promise<never>(() => {}),
});

function callOf(
  tool: ReturnType<typeof defineTool>,
  id = 'c1',
  overrides: Partial<PreparedCall['policy']> = {},
) {
  return {
    toolCallId: id,
    toolName: tool.name,
    input: {},
    policy: { ...evaluatePolicy(tool, {}), ...overrides },
  } satisfies PreparedCall;
}

describe('one tool attempt', () => {
  it('times out a tool that ignores its signal, as a retryable error', async () => {
    const { result } = await runToolAttempt({
      turnId: 't',
      call: callOf(deaf, 'c1', { timeoutMs: 20 }),
      attempt: 1,
      registry: new ToolRegistry([deaf]),
      timers,
      signal: new AbortController().signal,
    });
    expect(result).toMatchObject({ status: 'error', errorType: 'timeout', retryable: true });
    expect(result).toMatchObject({ content: 'deaf timed out after 20 ms' });
  });

  it("gives the tool the call's session key, and none to a call without one (a standalone turn)", async () => {
    const session = defineTool({
      name: 'session',
      description: 'Says its session key',
      input: z.object({}),
      execute: (_args, ctx) => ctx.session?.key ?? 'none',
    });
    const run = (extra: { session?: { key: string } }) =>
      runToolAttempt({
        turnId: 't',
        call: callOf(session),
        attempt: 1,
        registry: new ToolRegistry([session]),
        timers,
        ...extra,
      });
    expect((await run({ session: { key: 'conv#1' } })).result).toMatchObject({ content: 'conv#1' });
    expect((await run({})).result).toMatchObject({ content: 'none' });
  });

  it('turns a synchronous throw into an error output', async () => {
    const thrower = defineTool({
      name: 'thrower',
      description: 'Throws before returning a promise',
      input: z.object({}),
      execute: () => {
        throw new TypeError('bad state');
      },
    });
    const { result } = await runToolAttempt({
      turnId: 't',
      call: callOf(thrower),
      attempt: 1,
      registry: new ToolRegistry([thrower]),
      timers,
    });
    expect(result).toMatchObject({ status: 'error', content: 'bad state', errorType: 'TypeError' });
  });

  it('cuts an output over the size limit with an explicit marker, counting UTF-8 bytes', async () => {
    const big = defineTool({
      name: 'big',
      description: 'Returns 300 three-byte characters',
      input: z.object({}),
      execute: () => '€'.repeat(300),
    });
    const run = (maxOutputBytes: number) =>
      runToolAttempt({
        turnId: 't',
        call: callOf(big),
        attempt: 1,
        registry: new ToolRegistry([big]),
        timers,
        maxOutputBytes,
      });
    // 300 characters are 900 bytes: within 900 nothing is cut, even though 300 × 3 is exactly the limit.
    expect((await run(900)).result).toMatchObject({ status: 'ok', content: '€'.repeat(300) });
    const cut = (await run(899)).result;
    expect(cut).toMatchObject({ status: 'ok', truncated: true });
    expect(cut).toMatchObject({
      content: expect.stringMatching(/\[truncated: output was 900 bytes; the first \d+ are shown\]$/),
    });
  });
});

describe('listening for an abort', () => {
  it('calls each subscriber once when the signal aborts, and never one that unsubscribed', () => {
    const controller = new AbortController();
    const heard: string[] = [];
    onAbort(controller.signal, () => heard.push('a'));
    const unsubscribe = onAbort(controller.signal, () => heard.push('b'));
    onAbort(controller.signal, () => heard.push('c'));
    unsubscribe();
    controller.abort();
    controller.abort();
    expect(heard).toEqual(['a', 'c']);
  });

  it('calls a subscriber at once when the signal has already aborted', () => {
    const controller = new AbortController();
    controller.abort();
    const heard: string[] = [];
    onAbort(controller.signal, () => heard.push('late'));
    expect(heard).toEqual(['late']);
  });
});

import { z } from 'zod';
import { ToolHealthRegistry } from '../health/tool-health-registry';
import type { PreparedCall } from '../schema/prepared-call';
import { defineTool } from './define-tool';
import { evaluatePolicy } from './prepare-call';
import { type HostTimers, type RunToolAttemptArgs, runToolAttempt } from './run-tool-attempt';
import { ToolRegistry } from './tool-registry';

/** Lets every promise that can settle settle. */
const flush = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Host timers that move only when the test says so. Promises settle between two timers falling
 * due, as they would between two real ones, so "finishes before the grace ends" means just that.
 */
function manualTimers() {
  let now = 0;
  let scheduled = 0;
  const pending = new Map<number, { at: number; fn: () => void }>();
  const timers: HostTimers = {
    now: () => now,
    setTimeout: (fn, ms) => {
      scheduled += 1;
      pending.set(scheduled, { at: now + ms, fn });
      return scheduled;
    },
    clearTimeout: (handle) => {
      pending.delete(handle as number);
    },
  };
  const advance = async (ms: number) => {
    const end = now + ms;
    for (;;) {
      await flush();
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const entry of pending)
        if (entry[1].at <= end && (!next || entry[1].at < next[1].at)) next = entry;
      if (!next) break;
      pending.delete(next[0]);
      now = next[1].at;
      next[1].fn();
    }
    now = end;
    await flush();
  };
  return { timers, advance, scheduled: () => scheduled };
}

/** A grace long enough to tell its parts apart; every delay below is derived from it. */
const grace = 400;

/** Never looks at its signal and never settles by itself. */
const deaf = defineTool({
  name: 'deaf',
  description: 'Ignores its signal',
  input: z.object({}),
  execute: () => new Promise<never>(() => {}),
});

/** Rejects as soon as it is cancelled, as a well-behaved tool does. */
const stops = defineTool({
  name: 'stops',
  description: 'Stops when cancelled',
  input: z.object({}),
  execute: (_args, ctx) =>
    new Promise((_resolve, reject) => {
      ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
    }),
});

/** Finishes its write `delay` ms after it is cancelled: the effect happened. */
function finishesAfterCancel(timers: HostTimers, delay: number) {
  return defineTool({
    name: 'write',
    description: 'Completes shortly after a cancel',
    input: z.object({}),
    execute: (_args, ctx) =>
      new Promise((resolve) => {
        ctx.signal.addEventListener('abort', () => timers.setTimeout(() => resolve('written'), delay), {
          once: true,
        });
      }),
  });
}

function callOf(tool: ReturnType<typeof defineTool>, id = 'c1', timeoutMs?: number): PreparedCall {
  const policy = evaluatePolicy(tool, {});
  return {
    toolCallId: id,
    toolName: tool.name,
    input: {},
    policy: timeoutMs === undefined ? policy : { ...policy, timeoutMs },
  };
}

/** Starts an attempt and watches it, so a test can tell "still running" from "done". */
function start(
  tool: ReturnType<typeof defineTool>,
  timers: HostTimers,
  signal: AbortSignal,
  extra: Partial<RunToolAttemptArgs> = {},
) {
  const watched: { done: boolean } = { done: false };
  const attempt = runToolAttempt({
    turnId: 't',
    call: callOf(tool),
    attempt: 1,
    registry: new ToolRegistry([tool]),
    timers,
    signal,
    cancelGraceMs: grace,
    ...extra,
  }).then((ran) => {
    watched.done = true;
    return ran;
  });
  return { attempt, watched };
}

describe('a cancel while a tool runs', () => {
  it('records the real result of a tool that finishes within the grace: its effect happened', async () => {
    const clock = manualTimers();
    const cancel = new AbortController();
    const health = new ToolHealthRegistry({ now: clock.timers.now });
    const tool = finishesAfterCancel(clock.timers, grace / 4);
    const { attempt } = start(tool, clock.timers, cancel.signal, { health });
    await flush();
    cancel.abort('operator');
    await clock.advance(grace / 4);
    const { result } = await attempt;
    expect(result).toMatchObject({ status: 'ok', content: 'written' });
    expect(health.snapshotOf('write')).toMatchObject({ attempts: 1, successes: 1 });
  });

  it('records a tool that stops when cancelled as interrupted, saying that it stopped', async () => {
    const clock = manualTimers();
    const cancel = new AbortController();
    const { attempt } = start(stops, clock.timers, cancel.signal);
    await flush();
    cancel.abort('operator');
    expect(await attempt).toMatchObject({
      result: {
        status: 'interrupted',
        errorType: 'cancelled',
        content: 'interrupted: cancelled while running; the tool stopped',
      },
    });
  });

  it('waits the whole grace for a tool that ignores its signal, then says its outcome is unknown', async () => {
    const clock = manualTimers();
    const cancel = new AbortController();
    const health = new ToolHealthRegistry({ now: clock.timers.now });
    const { attempt, watched } = start(deaf, clock.timers, cancel.signal, { health });
    await flush();
    cancel.abort('operator');
    await clock.advance(grace - 1);
    expect(watched.done).toBe(false);
    await clock.advance(1);
    expect(watched.done).toBe(true);
    expect((await attempt).result).toEqual({
      status: 'interrupted',
      errorType: 'outcome-unknown',
      content: `interrupted: cancelled while running; its outcome is unknown (it did not stop within ${grace} ms of the cancel)`,
    });
    // It did not finish, so it is neither a success nor a failure of the tool.
    expect(health.snapshotOf('deaf').attempts).toBe(0);
  });

  it('gives a tool one second by default', async () => {
    const clock = manualTimers();
    const cancel = new AbortController();
    const { attempt, watched } = start(deaf, clock.timers, cancel.signal, { cancelGraceMs: undefined });
    await flush();
    cancel.abort('operator');
    await clock.advance(999);
    expect(watched.done).toBe(false);
    await clock.advance(1);
    expect((await attempt).result).toMatchObject({
      errorType: 'outcome-unknown',
      content: expect.stringContaining('it did not stop within 1000 ms of the cancel'),
    });
  });

  it('keeps the grace when the timeout falls due during it: the cancel came first', async () => {
    const clock = manualTimers();
    const cancel = new AbortController();
    const tool = finishesAfterCancel(clock.timers, grace / 2);
    const timeoutMs = grace / 4;
    const { attempt } = start(tool, clock.timers, cancel.signal, { call: callOf(tool, 'c1', timeoutMs) });
    await clock.advance(timeoutMs / 2);
    cancel.abort('operator');
    await clock.advance(grace / 2);
    expect((await attempt).result).toMatchObject({ status: 'ok', content: 'written' });
  });

  it('says its outcome is unknown at once when the host timers cannot time the grace', async () => {
    const cancel = new AbortController();
    const timers: HostTimers = {
      now: () => 0,
      setTimeout: () => {
        throw new Error('no timers left');
      },
      clearTimeout: () => {},
    };
    const { attempt } = start(deaf, timers, cancel.signal);
    await flush();
    cancel.abort('operator');
    expect((await attempt).result).toMatchObject({
      status: 'interrupted',
      errorType: 'outcome-unknown',
      content: expect.stringContaining('no grace period could be timed: no timers left'),
    });
  });

  it('interrupts a thousand attempts that share one signal with one cancel, after one grace', async () => {
    const clock = manualTimers();
    const cancel = new AbortController();
    const registry = new ToolRegistry([deaf]);
    const attempts = Array.from({ length: 1_000 }, (_, i) =>
      runToolAttempt({
        turnId: 't',
        call: callOf(deaf, `c${i}`),
        attempt: 1,
        registry,
        timers: clock.timers,
        signal: cancel.signal,
        cancelGraceMs: grace,
      }),
    );
    await flush();
    cancel.abort('stop');
    await clock.advance(grace);
    const results = await Promise.all(attempts);
    expect(results.every((r) => r.result.status === 'interrupted')).toBe(true);
  });
});

describe('the paths a cancel does not change', () => {
  it('times a tool out at once when the timeout comes before any cancel', async () => {
    const clock = manualTimers();
    const timeoutMs = grace / 4;
    const { attempt, watched } = start(deaf, clock.timers, new AbortController().signal, {
      call: callOf(deaf, 'c1', timeoutMs),
      cancelGraceMs: grace * 100,
    });
    await clock.advance(timeoutMs);
    expect(watched.done).toBe(true);
    expect((await attempt).result).toMatchObject({
      status: 'error',
      errorType: 'timeout',
      retryable: true,
      content: `deaf timed out after ${timeoutMs} ms`,
    });
  });

  it('records a synchronous tool as it returned, even if a cancel came while it ran', async () => {
    const clock = manualTimers();
    const cancel = new AbortController();
    const sync = defineTool({
      name: 'sync',
      description: 'Returns without a promise',
      input: z.object({}),
      execute: () => {
        cancel.abort('operator');
        return 'done';
      },
    });
    const { attempt } = start(sync, clock.timers, cancel.signal);
    expect((await attempt).result).toMatchObject({ status: 'ok', content: 'done' });
    expect(clock.scheduled()).toBe(0);
  });

  it('schedules no timer at all for an attempt that is never cancelled and has no timeout', async () => {
    const clock = manualTimers();
    const quick = defineTool({
      name: 'quick',
      description: 'Resolves at once',
      input: z.object({}),
      execute: async () => 'quick',
    });
    const { attempt } = start(quick, clock.timers, new AbortController().signal);
    expect((await attempt).result).toMatchObject({ status: 'ok', content: 'quick' });
    expect(clock.scheduled()).toBe(0);
  });

  it('does not start a tool when the cancel comes while its pre-tool hooks run', async () => {
    const clock = manualTimers();
    const cancel = new AbortController();
    let ran = false;
    const tool = defineTool({
      name: 'guarded',
      description: 'Must not start after a cancel',
      input: z.object({}),
      execute: () => {
        ran = true;
        return 'ran';
      },
    });
    const hooks = [
      {
        preTool: async () => {
          cancel.abort('operator');
          return undefined;
        },
      },
    ];
    const { attempt } = start(tool, clock.timers, cancel.signal, { hooks });
    expect((await attempt).result).toMatchObject({
      status: 'interrupted',
      content: 'interrupted: cancelled before it started',
    });
    expect(ran).toBe(false);
  });
});

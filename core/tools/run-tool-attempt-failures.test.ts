import { z } from 'zod';
import { hostileValues, trappedProxy } from '../../test/support/hostile-values';
import { ToolHealthRegistry } from '../health/tool-health-registry';
import type { TurnHooks } from '../hooks/turn-hooks';
import type { TurnObserver } from '../hooks/turn-observer';
import { attemptResultSchema } from '../schema/attempt-result';
import type { PreparedCall } from '../schema/prepared-call';
import { defineTool } from './define-tool';
import { evaluatePolicy } from './prepare-call';
import { type HostTimers, type RunToolAttemptArgs, runToolAttempt } from './run-tool-attempt';
import { ToolRegistry } from './tool-registry';

/*
 * runToolAttempt never rejects, whatever a tool, hook, observer or host part throws: in-process a
 * rejection would go unhandled and end the process; on Temporal the activity would fail instead
 * of giving the model an output. (Jest also fails a test in which a rejection goes unhandled, so
 * each test here would catch one the attempt let escape.)
 */

const timers: HostTimers = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

const fine = defineTool({
  name: 'fine',
  description: 'Returns at once',
  input: z.object({}),
  execute: () => 'fine',
});

function toolReturning(execute: () => unknown) {
  return defineTool({ name: 'odd', description: 'Behaves oddly', input: z.object({}), execute });
}

function callOf(tool: ReturnType<typeof defineTool>): PreparedCall {
  return { toolCallId: 'c1', toolName: tool.name, input: {}, policy: evaluatePolicy(tool, {}) };
}

async function attempt(tool: ReturnType<typeof defineTool>, extra: Partial<RunToolAttemptArgs> = {}) {
  const ran = await runToolAttempt({
    turnId: 't',
    call: callOf(tool),
    attempt: 1,
    registry: new ToolRegistry([tool]),
    timers,
    ...extra,
  });
  // Every output must be one the engine and the contract accept.
  expect(attemptResultSchema.safeParse(ran.result).success).toBe(true);
  return ran;
}

/** A macrotask: long enough for Node to report a rejection nobody handled. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

const cases = hostileValues.map((v) => [v.name, v] as const);

describe('a tool that throws anything', () => {
  it.each(cases)('gets an error output saying what it threw, when it throws %s', async (_name, value) => {
    const { result } = await attempt(
      toolReturning(() => {
        throw value.make();
      }),
    );
    expect(result).toEqual(
      expect.objectContaining({ status: 'error', content: value.toolMessage, errorType: value.errorType }),
    );
  });

  it.each(cases)(
    'gets an error output saying what it threw, when it rejects with %s',
    async (_name, value) => {
      const { result } = await attempt(toolReturning(() => Promise.reject(value.make())));
      expect(result).toMatchObject({
        status: 'error',
        content: value.toolMessage,
        errorType: value.errorType,
      });
    },
  );

  it('gets an error output when its result is a thenable whose `then` getter throws', async () => {
    // Defined, not written literally: the linter rightly flags objects with a `then`.
    const thenable = Object.defineProperty({}, 'then', {
      get() {
        throw Object.create(null);
      },
    });
    const { result } = await attempt(toolReturning(() => thenable));
    expect(result).toMatchObject({
      status: 'error',
      content: 'the tool threw a value that cannot be described (an object without a prototype)',
    });
  });

  it('gets an error output when its result is a thenable whose `then` throws when called', async () => {
    const thenable = Object.defineProperty({}, 'then', {
      value: () => {
        throw new Error('then refused');
      },
    });
    const { result } = await attempt(toolReturning(() => thenable));
    expect(result).toMatchObject({ status: 'error', content: 'then refused' });
  });

  // As `await` would: reading the result's `then` threw, so the result is that rejection.
  it('gets an error output when its result is a Proxy whose every trap throws', async () => {
    const { result } = await attempt(toolReturning(trappedProxy));
    expect(result).toMatchObject({ status: 'error', content: 'trap get refused' });
  });
});

describe('a tool whose result is not JSON', () => {
  const circular: { self?: unknown } = {};
  circular.self = circular;
  const notJson: [string, () => unknown, RegExp][] = [
    ['a BigInt', () => ({ count: 10n }), /BigInt/],
    ['a circular structure', () => circular, /circular/],
    [
      'an object whose toJSON throws',
      () => ({
        toJSON() {
          throw Object.create(null);
        },
      }),
      /converting it threw a value that cannot be described \(an object without a prototype\)/,
    ],
    ['a function', () => () => 1, /a function has no JSON form/],
  ];

  it.each(notJson)(
    'gets an explicit, non-retryable error output, not a throw, for %s',
    async (_name, make, why) => {
      const { result } = await attempt(toolReturning(make));
      expect(result).toMatchObject({ status: 'error', errorType: 'result-not-json', retryable: false });
      expect(result).toMatchObject({ content: expect.stringMatching(/^the tool's result is not JSON: /) });
      expect(result).toMatchObject({ content: expect.stringMatching(why) });
    },
  );

  it('gets the same output when the non-JSON value comes from a promise', async () => {
    const { result } = await attempt(toolReturning(async () => ({ count: 10n })));
    expect(result).toMatchObject({ status: 'error', errorType: 'result-not-json' });
  });

  it('counts as a failure of the tool in its health: it ran, and what it returned cannot be used', async () => {
    const health = new ToolHealthRegistry({ now: () => 0 });
    await attempt(
      toolReturning(() => 10n),
      { health },
    );
    expect(health.snapshotOf('odd')).toMatchObject({ attempts: 1, failures: 1 });
  });
});

describe('a hook that throws anything', () => {
  // Hook messages read "the hook failed: it threw …": the subject is the hook, already named.
  const asIt = (message: string) => message.replace(/^the tool /, 'it ');

  it.each(cases)(
    'blocks the call, saying what it threw, when a pre-tool hook throws %s',
    async (_name, value) => {
      let ran = false;
      const tool = toolReturning(() => {
        ran = true;
        return 'ran';
      });
      const hooks: TurnHooks[] = [
        {
          name: 'guard',
          preTool: () => {
            throw value.make();
          },
        },
      ];
      const { result } = await attempt(tool, { hooks });
      expect(result).toMatchObject({
        status: 'error',
        errorType: 'blocked',
        content: `blocked by hook guard: the hook failed: ${asIt(value.toolMessage)}`,
      });
      expect(ran).toBe(false);
    },
  );

  it.each(cases)(
    'under `warn`, runs the call and tells the observers, when a pre-tool hook throws %s',
    async (_name, value) => {
      const warnings: string[] = [];
      const hooks: TurnHooks[] = [
        {
          name: 'guard',
          onError: 'warn',
          preTool: () => Promise.reject(value.make()),
        },
      ];
      const observers: TurnObserver[] = [{ onHookWarning: (e) => warnings.push(e.error) }];
      const { result } = await attempt(fine, { hooks, observers });
      expect(result).toMatchObject({ status: 'ok', content: 'fine' });
      expect(warnings).toEqual([value.toolMessage.replace(/^the tool /, 'the hook ')]);
    },
  );

  it.each(cases)(
    'gives a hook-failed output, saying what it threw, when a post-tool hook throws %s',
    async (_name, value) => {
      const hooks: TurnHooks[] = [
        {
          name: 'audit',
          postTool: () => {
            throw value.make();
          },
        },
      ];
      const { result } = await attempt(fine, { hooks });
      expect(result).toMatchObject({
        status: 'error',
        errorType: 'hook-failed',
        content: `post-tool hook audit failed: ${asIt(value.toolMessage)}`,
      });
    },
  );

  it('blocks the call when a pre-tool hook returns a decision that cannot be read', async () => {
    const hooks: TurnHooks[] = [{ name: 'guard', preTool: () => trappedProxy() as { action: 'allow' } }];
    const { result } = await attempt(fine, { hooks });
    expect(result).toMatchObject({
      status: 'error',
      errorType: 'blocked',
      content: 'blocked by hook guard: the hook failed: trap get refused',
    });
  });

  it('gives a hook-failed output when a post-tool hook replaces the content with something not JSON', async () => {
    const hooks: TurnHooks[] = [{ name: 'audit', postTool: () => ({ replaceContent: { n: 1n } }) }];
    const { result } = await attempt(fine, { hooks });
    expect(result).toMatchObject({ status: 'error', errorType: 'hook-failed' });
    expect(result).toMatchObject({
      content: expect.stringMatching(/^post-tool hook audit failed: .*BigInt/),
    });
  });
});

describe('an observer that throws anything', () => {
  it.each(cases)('does not change the output when its methods throw %s', async (_name, value) => {
    const throwing = () => {
      throw value.make();
    };
    const observers: TurnObserver[] = [
      { onToolPre: throwing, onToolPost: throwing, onHookWarning: throwing },
    ];
    const hooks: TurnHooks[] = [{ onError: 'warn', preTool: throwing }];
    const { result } = await attempt(fine, { observers, hooks });
    expect(result).toMatchObject({ status: 'ok', content: 'fine' });
  });

  it.each(cases)(
    'does not change the output, nor leave a rejection unhandled, when its promises reject with %s',
    async (_name, value) => {
      const rejecting = async () => {
        throw value.make();
      };
      const observers: TurnObserver[] = [
        { onToolPre: rejecting, onToolPost: rejecting, onHookWarning: rejecting },
      ];
      const hooks: TurnHooks[] = [{ onError: 'warn', preTool: rejecting }];
      const { result } = await attempt(fine, { observers, hooks });
      expect(result).toMatchObject({ status: 'ok', content: 'fine' });
      await settle();
    },
  );

  it('still hears the post event of an attempt whose other observer threw on the pre event', async () => {
    const heard: string[] = [];
    const observers: TurnObserver[] = [
      {
        onToolPre: () => {
          throw trappedProxy();
        },
      },
      { onToolPost: (e) => heard.push(`${e.toolCallId} ${e.status}`) },
    ];
    await attempt(fine, { observers });
    expect(heard).toEqual(['c1 ok']);
  });
});

describe('a host part that throws', () => {
  it("keeps the tool's result when the health registry fails to record it", async () => {
    const health = new ToolHealthRegistry({ now: () => 0 });
    health.record = () => {
      throw Object.create(null);
    };
    const { result } = await attempt(fine, { health });
    expect(result).toMatchObject({ status: 'ok', content: 'fine' });
  });

  it("keeps the tool's result when the host timers fail to clear its timeout", async () => {
    const leaky: HostTimers = {
      ...timers,
      clearTimeout: () => {
        throw new Error('clear broke');
      },
    };
    const quick = defineTool({
      name: 'quick',
      description: 'Resolves well within its timeout',
      input: z.object({}),
      timeoutMs: 60_000,
      execute: async () => 'quick',
    });
    const { result } = await attempt(quick, { timers: { ...leaky, setTimeout: () => 'never fires' } });
    expect(result).toMatchObject({ status: 'ok', content: 'quick' });
  });

  it('keeps the interrupted output when the health registry fails to release a cancelled attempt', async () => {
    const health = new ToolHealthRegistry({ now: () => 0 });
    health.release = () => {
      throw new Error('release broke');
    };
    const cancel = new AbortController();
    const stops = defineTool({
      name: 'stops',
      description: 'Stops when cancelled',
      input: z.object({}),
      execute: (_args, ctx) =>
        new Promise((_resolve, reject) =>
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
        ),
    });
    const running = attempt(stops, { health, signal: cancel.signal });
    cancel.abort('stop');
    const { result } = await running;
    expect(result).toMatchObject({
      status: 'interrupted',
      content: 'interrupted: cancelled while running; the tool stopped',
    });
  });
});

describe('the last-resort guard', () => {
  it('turns a failure nothing else caught (a registry whose get throws) into an internal-error output', async () => {
    const registry = new ToolRegistry([fine]);
    registry.get = () => {
      throw Object.create(null);
    };
    const events: string[] = [];
    const observers: TurnObserver[] = [
      {
        onToolPre: (e) => events.push(`pre ${e.toolCallId}`),
        onToolPost: (e) => events.push(`post ${e.toolCallId} ${e.status}`),
      },
    ];
    const { result } = await attempt(fine, { registry, observers });
    expect(result).toEqual({
      status: 'error',
      errorType: 'internal-error',
      retryable: false,
      content:
        'internal error while running the attempt (whether the tool ran is not known): it threw a value that cannot be described (an object without a prototype)',
      resultHash: expect.any(String),
    });
    // The observers' pre/post pair is closed, as for every other output.
    expect(events).toEqual(['pre c1', 'post c1 error']);
  });

  it('turns a host clock that throws into an internal-error output', async () => {
    const broken: HostTimers = {
      ...timers,
      now: () => {
        throw new Error('clock broke');
      },
    };
    const { result, durationMs } = await attempt(fine, { timers: broken });
    expect(result).toMatchObject({
      status: 'error',
      errorType: 'internal-error',
      content: expect.stringMatching(/: clock broke$/),
    });
    expect(durationMs).toBe(0);
  });
});

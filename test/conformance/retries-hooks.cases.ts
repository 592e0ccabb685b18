import {
  defineTool,
  NonRetryableToolError,
  scriptedModel,
  ToolHealthRegistry,
  type TurnHooks,
} from 'durable-turns';
import { z } from 'zod';
import { type ConformanceHarness, runSpec } from './harness';
import { RecordingObserver, uniqueTurnId } from './support';

function flakyTool(failures: number, options: { errorName?: string; nonRetryable?: boolean } = {}) {
  const seen: { attempt: number; key: string }[] = [];
  const tool = defineTool({
    name: 'flaky',
    description: 'Fails a few times, then works',
    input: z.object({ x: z.number() }),
    retry: {
      maxAttempts: 5,
      initialDelayMs: 20,
      backoffCoefficient: 2,
      nonRetryableErrorTypes: ['QuotaError'],
    },
    execute: (_args, ctx) => {
      seen.push({ attempt: ctx.attempt, key: ctx.idempotencyKey });
      if (seen.length <= failures) {
        if (options.nonRetryable) throw new NonRetryableToolError('permanent');
        const error = new Error(`failure ${seen.length}`);
        if (options.errorName) error.name = options.errorName;
        throw error;
      }
      return 'finally';
    },
  });
  return { tool, seen };
}

export function retryAndHookCases(harness: ConformanceHarness): void {
  describe(`retries (${harness.name})`, () => {
    test('fail, fail, succeed gives three pre/post pairs, three health records and one output', async () => {
      const { tool, seen } = flakyTool(2);
      const observer = new RecordingObserver();
      const health = new ToolHealthRegistry({ now: Date.now });
      const turnId = uniqueTurnId('retry');
      const result = await runSpec(harness, {
        turnId,
        input: 'go',
        tools: [tool],
        observers: [observer],
        health,
        model: scriptedModel([{ toolCalls: [{ id: 'c1', name: 'flaky', args: { x: 1 } }] }, { text: 'ok' }]),
      });
      expect(result.outputs).toEqual([
        expect.objectContaining({ toolCallId: 'c1', status: 'ok', content: 'finally', attempts: 3 }),
      ]);
      expect(observer.order).toEqual([
        'pre:c1#1',
        'post:c1#1',
        'pre:c1#2',
        'post:c1#2',
        'pre:c1#3',
        'post:c1#3',
      ]);
      expect(observer.post.map((e) => e.isError)).toEqual([true, true, false]);
      expect(health.snapshotOf('flaky')).toMatchObject({ attempts: 3, successes: 1, failures: 2 });
      expect(seen.map((s) => s.attempt)).toEqual([1, 2, 3]);
      // The idempotency key is the same on every attempt.
      expect(new Set(seen.map((s) => s.key))).toEqual(new Set([`${turnId}/c1`]));
    });

    test('errors of a non-retryable type, or marked non-retryable, are not tried again', async () => {
      for (const options of [{ errorName: 'QuotaError' }, { nonRetryable: true }]) {
        const { tool, seen } = flakyTool(5, options);
        const result = await runSpec(harness, {
          turnId: uniqueTurnId('no-retry'),
          input: 'go',
          tools: [tool],
          model: scriptedModel([
            { toolCalls: [{ id: 'c1', name: 'flaky', args: { x: 1 } }] },
            { text: 'ok' },
          ]),
        });
        expect(seen).toHaveLength(1);
        expect(result.outputs[0]).toMatchObject({ status: 'error', attempts: 1 });
      }
    });

    test('a call that keeps failing stops after its policy’s attempts with an error output', async () => {
      const { tool, seen } = flakyTool(99);
      const result = await runSpec(harness, {
        turnId: uniqueTurnId('exhausted'),
        input: 'go',
        tools: [tool],
        model: scriptedModel([{ toolCalls: [{ id: 'c1', name: 'flaky', args: { x: 1 } }] }, { text: 'ok' }]),
      });
      expect(seen).toHaveLength(5);
      expect(result.outputs[0]).toMatchObject({ status: 'error', attempts: 5, content: 'failure 5' });
    });
  });

  describe(`approvals (${harness.name})`, () => {
    test('a call that waits longer than the approval timeout gets an explicit error and the turn carries on', async () => {
      let ran = 0;
      const risky = defineTool({
        name: 'risky',
        description: 'Needs a person',
        input: z.object({}),
        requiresApproval: true,
        execute: () => {
          ran += 1;
          return 'done';
        },
      });
      const result = await runSpec(harness, {
        turnId: uniqueTurnId('approval-timeout'),
        input: 'go',
        tools: [risky],
        approvals: { timeoutMs: 300 },
        approver: () => new Promise(() => {}),
        model: scriptedModel([{ toolCalls: [{ id: 'r', name: 'risky', args: {} }] }, { text: 'moved on' }]),
      });
      expect(ran).toBe(0);
      expect(result.text).toBe('moved on');
      expect(result.outputs[0]).toMatchObject({ status: 'error', errorType: 'approval-expired' });
      expect(String(result.outputs[0]?.content)).toMatch(/no approval decision within 300 ms/);
    });
  });

  describe(`hooks (${harness.name})`, () => {
    const echo = defineTool({
      name: 'echo',
      description: 'Echoes its text',
      input: z.object({ text: z.string() }),
      concurrencySafe: true,
      execute: ({ text }) => `echo: ${text}`,
    });
    const calls = (...texts: string[]) =>
      texts.map((text, i) => ({ id: `e${i}`, name: 'echo', args: { text } }));

    test('a pre-tool hook may allow, block, or rewrite the arguments; a post-tool hook may replace the output', async () => {
      const observer = new RecordingObserver();
      const hooks: TurnHooks[] = [
        {
          name: 'policy',
          preTool: ({ args }) => {
            const text = (args as { text: string }).text;
            if (text === 'secret') return { action: 'block', reason: 'no secrets' };
            if (text === 'shout') return { action: 'mutate', args: { text: 'SHOUT' } };
            return undefined;
          },
          postTool: ({ result }) =>
            result.status === 'ok' && result.content === 'echo: redact'
              ? { replaceContent: '[redacted]' }
              : undefined,
        },
      ];
      const result = await runSpec(harness, {
        turnId: uniqueTurnId('hooks'),
        input: 'go',
        tools: [echo],
        hooks,
        observers: [observer],
        model: scriptedModel([{ toolCalls: calls('hi', 'secret', 'shout', 'redact') }, { text: 'ok' }]),
      });
      expect(result.outputs.map((o) => [o.status, o.content])).toEqual([
        ['ok', 'echo: hi'],
        ['error', 'blocked by hook policy: no secrets'],
        ['ok', 'echo: SHOUT'],
        ['ok', '[redacted]'],
      ]);
      // The blocked call still got its post event.
      expect(observer.post.find((e) => e.toolCallId === 'e1')).toMatchObject({ isError: true });
      expect(observer.post).toHaveLength(4);
    });

    test('a hook that throws follows its error policy: block, allow, or warn', async () => {
      const broken = (onError: 'block' | 'allow' | 'warn'): TurnHooks => ({
        name: `broken-${onError}`,
        onError,
        preTool: () => {
          throw new Error('hook bug');
        },
      });
      const warnings: string[] = [];
      for (const policy of ['block', 'allow', 'warn'] as const) {
        const result = await runSpec(harness, {
          turnId: uniqueTurnId(`hook-error-${policy}`),
          input: 'go',
          tools: [echo],
          hooks: [broken(policy)],
          observers: [{ onHookWarning: (e) => warnings.push(`${e.hook}: ${e.error}`) }],
          model: scriptedModel([{ toolCalls: calls('x') }, { text: 'ok' }]),
        });
        const expected =
          policy === 'block'
            ? { status: 'error', errorType: 'blocked' }
            : { status: 'ok', content: 'echo: x' };
        expect(result.outputs[0]).toMatchObject(expected);
      }
      expect(warnings).toEqual(['broken-warn: hook bug']);
    });

    test('a hook that asks for approval holds the call until a person decides', async () => {
      const asked: string[] = [];
      const result = await runSpec(harness, {
        turnId: uniqueTurnId('ask'),
        input: 'go',
        tools: [echo],
        hooks: [
          {
            name: 'gate',
            preTool: ({ args }) =>
              (args as { text: string }).text.startsWith('rm')
                ? { action: 'ask', reason: 'destructive' }
                : undefined,
          },
        ],
        approver: async ({ toolCallId, reason }) => {
          asked.push(`${toolCallId}: ${reason}`);
          return toolCallId === 'e0' ? { approved: true } : { approved: false, reason: 'not today' };
        },
        model: scriptedModel([{ toolCalls: calls('rm a', 'rm b', 'ls') }, { text: 'ok' }]),
      });
      expect(asked.sort()).toEqual(['e0: destructive', 'e1: destructive']);
      expect(result.outputs.map((o) => [o.status, o.content])).toEqual([
        ['ok', 'echo: rm a'],
        ['error', 'the call was rejected by an approver: not today'],
        ['ok', 'echo: ls'],
      ]);
    });
  });
}

import { defineTool, scriptedModel, type TurnModel, transcriptProblems } from 'durable-turns';
import { z } from 'zod';
import { type ConformanceHarness, runSpec } from './harness';
import { sleep, uniqueTurnId } from './support';

/** Tools that note when they started, relative to a clock the test resets when the turn starts. */
function timedTools() {
  const startedAt = new Map<string, number>();
  const waiters = new Map<string, () => void>();
  let t0 = 0;
  let streamEndedAt: number | undefined;
  const args = z.object({ ms: z.number() });
  const run = async (id: string, ms: number) => {
    startedAt.set(id, performance.now() - t0);
    waiters.get(id)?.();
    await sleep(ms);
    return `${id} done`;
  };
  /** Resolves when the call has started, or after `ms` (so a host that never starts it mid-stream ends the stream). */
  const startOf = (id: string, ms: number) =>
    startedAt.has(id)
      ? Promise.resolve()
      : Promise.race([new Promise<void>((resolve) => waiters.set(id, resolve)), sleep(ms)]);
  const lookup = defineTool({
    name: 'lookup',
    description: 'safe',
    input: args,
    concurrencySafe: true,
    execute: ({ ms }, ctx) => run(ctx.toolCallId, ms),
  });
  const mutate = defineTool({
    name: 'mutate',
    description: 'unsafe',
    input: args,
    execute: ({ ms }, ctx) => run(ctx.toolCallId, ms),
  });
  /** The model, with the clock reset when its first response starts streaming. */
  const clocked = (model: TurnModel): TurnModel => ({
    name: model.name,
    stream: (request) => {
      if (request.responseIndex === 0) t0 = performance.now();
      return model.stream(request);
    },
  });
  /**
   * The model, its first response held open before its finish part until the named calls have
   * started (at most `holdMs`): whether a call starts mid-stream then depends on the host, not on
   * how fast a loaded machine hands out work. Notes when the stream ended.
   */
  const heldOpenUntilStarted = (model: TurnModel, ids: readonly string[], holdMs = 30_000): TurnModel => ({
    name: model.name,
    async *stream(request) {
      if (request.responseIndex === 0) t0 = performance.now();
      for await (const part of model.stream(request)) {
        if (request.responseIndex === 0 && part.type === 'finish') {
          await Promise.all(ids.map((id) => startOf(id, holdMs)));
          streamEndedAt = performance.now() - t0;
        }
        yield part;
      }
    },
  });
  return {
    tools: [lookup, mutate],
    startedAt,
    clocked,
    heldOpenUntilStarted,
    streamEnd: () => streamEndedAt,
  };
}

const call = (id: string, name: string, delayMs: number, ms = 50) => ({
  type: 'tool-call' as const,
  toolCallId: id,
  toolName: name,
  input: JSON.stringify({ ms }),
  delayMs,
});
const finish = (delayMs: number) => ({
  type: 'finish' as const,
  finishReason: 'tool-calls',
  usage: { inputTokens: 1, outputTokens: 1 },
  delayMs,
});

export function streamingCases(harness: ConformanceHarness): void {
  describe(`tools start while the response streams (${harness.name})`, () => {
    test('a safe call starts as soon as its arguments are complete, long before the stream ends', async () => {
      const { tools, startedAt, heldOpenUntilStarted, streamEnd } = timedTools();
      const result = await runSpec(harness, {
        turnId: uniqueTurnId('midstream'),
        input: 'go',
        tools,
        model: heldOpenUntilStarted(
          scriptedModel([
            { parts: [call('early', 'lookup', 100), call('late', 'lookup', 400), finish(0)] },
            { text: 'done' },
          ]),
          ['early', 'late'],
        ),
      });
      expect(result.status).toBe('completed');
      // The stream stays open until both have started: a host that waited for its end would have
      // held it the whole 30 s and started them after it.
      expect(startedAt.get('early')).toBeLessThan(streamEnd() ?? 0);
      expect(startedAt.get('late')).toBeLessThan(streamEnd() ?? 0);
      expect(streamEnd()).toBeLessThan(30_000);
      expect(result.outputs.map((o) => o.status)).toEqual(['ok', 'ok']);
    });

    test('an unsafe call, and everything after it, waits for the end of the stream', async () => {
      const { tools, startedAt, clocked } = timedTools();
      await runSpec(harness, {
        turnId: uniqueTurnId('midstream-unsafe'),
        input: 'go',
        tools,
        model: clocked(
          scriptedModel([
            { parts: [call('w', 'mutate', 50), call('r', 'lookup', 50), finish(1_500)] },
            { text: 'done' },
          ]),
        ),
      });
      expect(startedAt.get('w')).toBeGreaterThanOrEqual(1_500);
      expect(startedAt.get('r')).toBeGreaterThan(startedAt.get('w') ?? 0);
    });

    test('sequential mode does not start calls mid-stream', async () => {
      const { tools, startedAt, clocked } = timedTools();
      await runSpec(harness, {
        turnId: uniqueTurnId('midstream-seq'),
        input: 'go',
        tools,
        dispatch: { mode: 'sequential' },
        model: clocked(
          scriptedModel([{ parts: [call('a', 'lookup', 50), finish(1_000)] }, { text: 'done' }]),
        ),
      });
      expect(startedAt.get('a')).toBeGreaterThanOrEqual(1_000);
    });

    test('a stream that dies after two of three calls: those two run, the message is marked partial, the turn carries on', async () => {
      const { tools } = timedTools();
      const result = await runSpec(harness, {
        turnId: uniqueTurnId('midstream-broken'),
        input: 'go',
        tools,
        model: scriptedModel([
          {
            parts: [
              call('a', 'lookup', 20),
              call('b', 'lookup', 20),
              { type: 'error', message: 'connection reset', delayMs: 100 },
            ],
          },
          { text: 'carried on' },
        ]),
      });
      expect(result.status).toBe('completed');
      expect(result.text).toBe('carried on');
      expect(result.outputs.map((o) => [o.toolCallId, o.status])).toEqual([
        ['a', 'ok'],
        ['b', 'ok'],
      ]);
      const first = result.transcript[0];
      expect(first?.role === 'assistant' && first.partial?.reason).toMatch(/connection reset/);
      expect(transcriptProblems(result.transcript)).toEqual([]);
    });

    test('cancelling mid-stream interrupts every accepted call and leaves a valid transcript', async () => {
      const { tools, startedAt } = timedTools();
      const turn = await harness.start({
        turnId: uniqueTurnId('midstream-cancel'),
        input: 'go',
        tools,
        model: scriptedModel([
          { parts: [call('a', 'lookup', 20, 30_000), call('b', 'mutate', 20), finish(30_000)] },
          { text: 'never' },
        ]),
      });
      const deadline = Date.now() + 20_000;
      while (!startedAt.has('a') && Date.now() < deadline) await sleep(20);
      await sleep(500); // `b` is complete in the stream 20 ms after `a`
      await turn.cancel();
      const result = await turn.result;
      expect(result.status).toBe('cancelled');
      expect(result.outputs.map((o) => [o.toolCallId, o.status])).toEqual([
        ['a', 'interrupted'],
        ['b', 'interrupted'],
      ]);
      expect(transcriptProblems(result.transcript)).toEqual([]);
    });
  });
}

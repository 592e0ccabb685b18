import { z } from 'zod';
import { buildModelResponse } from '../model/build-response';
import { ResponseCollector } from '../model/collect-response';
import type { AttemptResult } from '../schema/attempt-result';
import type { JournalEntry } from '../schema/journal-entry';
import type { TurnConfigInput } from '../schema/turn-config';
import { defineTool } from '../tools/define-tool';
import { stableHash } from '../tools/stable-hash';
import { ToolRegistry } from '../tools/tool-registry';
import { feedHostEvent } from './host-event';
import {
  type ChainedAttempt,
  mayBeginQuickChain,
  quickChainPayloadBytes,
  quickChainSnapshot,
  quickChainWindowMs,
  runQuickChain,
} from './quick-chain';
import { type ToolStart, TurnEngine } from './turn-engine';

const quickTool = (
  name: string,
  more: { requiresApproval?: boolean; retry?: { maxAttempts: number; initialDelayMs: number } } = {},
) =>
  defineTool({
    name,
    description: name,
    input: z.object({ n: z.number() }),
    retrySafe: true,
    quick: true,
    timeoutMs: 5_000,
    ...more,
    execute: ({ n }) => n,
  });

// All but `side` are not concurrency-safe: each call is a wave of its own, after the one before it.
const registry = new ToolRegistry([
  quickTool('step'),
  quickTool('gated', { requiresApproval: true }),
  quickTool('flaky', { retry: { maxAttempts: 3, initialDelayMs: 100 } }),
  quickTool('eager', { retry: { maxAttempts: 3, initialDelayMs: 0 } }),
  // Concurrency-safe: calls of it start side by side.
  defineTool({
    name: 'side',
    description: 'side',
    input: z.object({ n: z.number() }),
    retrySafe: true,
    quick: true,
    timeoutMs: 1_000,
    concurrencySafe: true,
    execute: ({ n }) => n,
  }),
  defineTool({
    name: 'plain',
    description: 'plain',
    input: z.object({ n: z.number() }),
    execute: ({ n }) => n,
  }),
]);

const T0 = 1_000_000;
const ok = (n: number): AttemptResult => ({
  status: 'ok',
  content: `done ${n}`,
  resultHash: stableHash(`done ${n}`),
});
const failed: AttemptResult = {
  status: 'error',
  content: 'boom',
  errorType: 'Error',
  retryable: true,
  resultHash: stableHash('boom'),
};

/** A turn whose response asked for these calls (`name:n`), and the engine's first start. */
function turnWith(calls: string[], config: TurnConfigInput = {}) {
  const { engine } = TurnEngine.start({ turnId: 't', input: 'go', config, now: T0 });
  engine.next(T0);
  const collector = new ResponseCollector();
  calls.forEach((spec, i) => {
    const [name, n] = spec.split(':');
    collector.add({
      type: 'tool-call',
      toolCallId: `c${i}`,
      toolName: name as string,
      input: JSON.stringify({ n: Number(n ?? i) }),
    });
  });
  collector.add({ type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 1, outputTokens: 1 } });
  engine.onModelResponded(
    buildModelResponse({
      collected: collector.result(),
      registry,
      responseIndex: 0,
      priorCallIds: engine.view.callIds,
    }),
  );
  const { op } = engine.next(T0);
  if (op.kind !== 'run-tools') throw new Error(`expected a start, got ${op.kind}`);
  return { engine, first: op.starts[0] as ToolStart, starts: op.starts };
}

/** Runs a chain from the workflow engine's snapshot, each attempt answered by `answer`. */
async function chain(
  engine: TurnEngine,
  first: ToolStart,
  answer: (start: ToolStart) => AttemptResult = (start) => ok(Number((start.call.input as { n: number }).n)),
  more: { elapsed?: () => number; stopped?: () => boolean; maxOutputBytes?: number } = {},
) {
  const ran: ToolStart[] = [];
  const attempts = await runQuickChain({
    engine: TurnEngine.restore(JSON.parse(JSON.stringify(quickChainSnapshot(engine)))),
    first,
    now: T0,
    maxOutputBytes: more.maxOutputBytes ?? 1_000,
    elapsedMs: more.elapsed ?? (() => 0),
    stopped: more.stopped ?? (() => false),
    run: async (start) => {
      ran.push(start);
      return { result: answer(start), durationMs: 1 };
    },
  });
  return { attempts, ran };
}

/**
 * What the workflow does with a chain's attempts: feeds the first, then takes each call the engine
 * starts from the chain. Returns the entries and the starts the engine made that the chain had not run.
 */
function absorb(engine: TurnEngine, attempts: ChainedAttempt[], now = T0) {
  const entries: JournalEntry[] = [];
  const byKey = new Map(attempts.map((a) => [`${a.toolCallId}#${a.attempt}`, a]));
  let queue: ChainedAttempt[] = [attempts[0] as ChainedAttempt];
  byKey.delete(`${attempts[0]?.toolCallId}#${attempts[0]?.attempt}`);
  const notChained: ToolStart[] = [];
  while (queue.length > 0) {
    for (const a of queue) entries.push(...feedHostEvent(engine, { kind: 'attempt-finished', ...a }, now));
    queue = [];
    const step = engine.next(now);
    entries.push(...step.entries);
    if (step.op.kind !== 'run-tools') break;
    for (const start of step.op.starts) {
      const ran = byKey.get(`${start.call.toolCallId}#${start.attempt}`);
      if (ran) {
        byKey.delete(`${start.call.toolCallId}#${start.attempt}`);
        queue.push(ran);
      } else notChained.push(start);
    }
    if (queue.length === 0) break;
  }
  return { entries, left: [...byKey.keys()], notChained };
}

describe('a quick chain', () => {
  test('runs calls that must run one after another back to back, and the workflow engine, fed the outcomes, starts exactly those calls in that order', async () => {
    const { engine, first } = turnWith(['step:1', 'step:2', 'step:3', 'step:4']);
    const { attempts, ran } = await chain(engine, first);
    expect(ran.map((s) => s.call.toolCallId)).toEqual(['c0', 'c1', 'c2', 'c3']);
    expect(attempts.map((a) => [a.toolCallId, a.attempt, 'content' in a.result && a.result.content])).toEqual(
      [
        ['c0', 1, 'done 1'],
        ['c1', 1, 'done 2'],
        ['c2', 1, 'done 3'],
        ['c3', 1, 'done 4'],
      ],
    );
    const { left, notChained } = absorb(engine, attempts);
    expect(left).toEqual([]);
    expect(notChained).toEqual([]);
    expect(engine.view.batch?.calls.map((c) => c.final?.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
  });

  test('gives each chained call the idempotency key and timeout the engine gives it', async () => {
    const { engine, first } = turnWith(['step:1', 'step:2']);
    const { ran } = await chain(engine, first);
    const reference = turnWith(['step:1', 'step:2']).engine;
    feedHostEvent(
      reference,
      { kind: 'attempt-finished', toolCallId: 'c0', attempt: 1, result: ok(1), durationMs: 1 },
      T0,
    );
    const { op } = reference.next(T0);
    expect(op.kind === 'run-tools' && op.starts[0]).toEqual(ran[1]);
  });

  test('stops where the engine would wait: a failed attempt whose retry is not due yet', async () => {
    const { engine, first } = turnWith(['step:1', 'flaky:2', 'step:3']);
    const { attempts } = await chain(engine, first, (s) => (s.call.toolName === 'flaky' ? failed : ok(1)));
    expect(attempts.map((a) => [a.toolCallId, a.result.status])).toEqual([
      ['c0', 'ok'],
      ['c1', 'error'],
    ]);
    expect(absorb(engine, attempts).left).toEqual([]);
  });

  test("goes on past an error the engine does not retry: it is that call's output", async () => {
    const { engine, first } = turnWith(['step:1', 'step:2', 'step:3']);
    const final: AttemptResult = { ...failed, retryable: false };
    const { attempts } = await chain(engine, first, (s) => (s.call.toolCallId === 'c1' ? final : ok(1)));
    expect(attempts.map((a) => [a.toolCallId, a.result.status])).toEqual([
      ['c0', 'ok'],
      ['c1', 'error'],
      ['c2', 'ok'],
    ]);
    expect(absorb(engine, attempts).left).toEqual([]);
    expect(engine.view.batch?.calls.map((c) => c.final?.status)).toEqual(['ok', 'error', 'ok']);
  });

  test('runs a retry the engine starts at once, as a second attempt of the call', async () => {
    const { engine, first } = turnWith(['eager:1', 'step:2']);
    let failures = 0;
    const { attempts } = await chain(engine, first, (s) => {
      if (s.call.toolName === 'eager' && failures === 0) {
        failures += 1;
        return failed;
      }
      return ok(1);
    });
    expect(attempts.map((a) => [a.toolCallId, a.attempt, a.result.status])).toEqual([
      ['c0', 1, 'error'],
      ['c0', 2, 'ok'],
      ['c1', 1, 'ok'],
    ]);
    expect(absorb(engine, attempts).left).toEqual([]);
  });

  test('never runs a call that is not quick, nor one that waits for a person', async () => {
    for (const other of ['plain:2', 'gated:2']) {
      const { engine, first } = turnWith(['step:1', other, 'step:3']);
      const { ran } = await chain(engine, first);
      expect(ran.map((s) => s.call.toolCallId)).toEqual(['c0']);
    }
  });

  test('stops where loop detection stops the turn, so no call runs that the engine would not start', async () => {
    const config = { detection: { enabled: true, warnAfter: 2, stopAfter: 3 } };
    const { engine, first } = turnWith(['step:7', 'step:7', 'step:7', 'step:7', 'step:7'], config);
    const { attempts } = await chain(engine, first);
    expect(attempts.map((a) => a.toolCallId)).toEqual(['c0', 'c1', 'c2']);
    const { left } = absorb(engine, attempts);
    expect(left).toEqual([]);
    expect(engine.view.halt?.reason).toBe('loop_detected');
  });

  test('stops at the tool-call budget as the engine does', async () => {
    const { engine, first } = turnWith(['step:1', 'step:2', 'step:3', 'step:4'], {
      budget: { maxToolCalls: 2 },
    });
    const { attempts } = await chain(engine, first);
    expect(attempts.map((a) => a.toolCallId)).toEqual(['c0', 'c1']);
    expect(absorb(engine, attempts).left).toEqual([]);
  });

  test('starts no call once asked to stop, once its window has passed, or when one more output might not fit its payload', async () => {
    const calls = ['step:1', 'step:2', 'step:3'];
    let stop = false;
    const stopped = await chain(
      turnWith(calls).engine,
      turnWith(calls).first,
      (s) => {
        stop = true;
        return ok(Number((s.call.input as { n: number }).n));
      },
      { stopped: () => stop },
    );
    expect(stopped.ran).toHaveLength(1);

    let clock = 0;
    const late = await chain(
      turnWith(calls).engine,
      turnWith(calls).first,
      (s) => {
        clock += quickChainWindowMs / 2;
        return ok(Number((s.call.input as { n: number }).n));
      },
      { elapsed: () => clock },
    );
    expect(late.ran).toHaveLength(2);

    const big = await chain(turnWith(calls).engine, turnWith(calls).first, undefined, {
      maxOutputBytes: Math.ceil(quickChainPayloadBytes / 6),
    });
    expect(big.ran).toHaveLength(1);
  });
});

test('an attempt that throws (none should) ends the chain with what ran before it, or fails it when it is the first', async () => {
  const calls = ['step:1', 'step:2', 'step:3'];
  const throwing = (id: string) => (start: ToolStart) => {
    if (start.call.toolCallId === id) throw new Error('host bug');
    return ok(1);
  };
  const second = await chain(turnWith(calls).engine, turnWith(calls).first, throwing('c1'));
  expect(second.attempts.map((a) => a.toolCallId)).toEqual(['c0']);
  await expect(chain(turnWith(calls).engine, turnWith(calls).first, throwing('c0'))).rejects.toThrow(
    'host bug',
  );
});

describe('whether a quick chain may begin', () => {
  const may = (calls: string[], config: TurnConfigInput = {}, now = T0) => {
    const { engine, first } = turnWith(calls, config);
    return mayBeginQuickChain({ view: engine.view, start: first, now, chainTimeoutMs: 20_000 });
  };

  test('with a quick call after the first, and nothing else running or waiting', () => {
    expect(may(['step:1', 'step:2'])).toBe(true);
  });

  test('not for a lone call, nor when the next call is not quick or waits for a person', () => {
    expect(may(['step:1'])).toBe(false);
    expect(may(['step:1', 'plain:2'])).toBe(false);
    expect(may(['step:1', 'gated:2'])).toBe(false);
  });

  test('not when the turn asks for one local activity per call', () => {
    expect(may(['step:1', 'step:2'], { dispatch: { chainQuickCalls: false } })).toBe(false);
  });

  test('not when the wall-time budget could run out before the chain ends', () => {
    expect(may(['step:1', 'step:2'], { budget: { maxWallTimeMs: 15_000 } })).toBe(false);
    expect(may(['step:1', 'step:2'], { budget: { maxWallTimeMs: 60_000 } })).toBe(true);
  });

  test('not when another call runs beside it', () => {
    const { engine, starts } = turnWith(['side:1', 'side:2', 'side:3']);
    expect(starts).toHaveLength(3);
    expect(
      mayBeginQuickChain({ view: engine.view, start: starts[0] as ToolStart, now: T0, chainTimeoutMs: 1 }),
    ).toBe(false);
  });
});

import { z } from 'zod';
import { buildModelResponse } from '../model/build-response';
import { ResponseCollector } from '../model/collect-response';
import type { AttemptResult } from '../schema/attempt-result';
import type { JournalEntry } from '../schema/journal-entry';
import type { TurnConfigInput } from '../schema/turn-config';
import { defineTool } from '../tools/define-tool';
import { stableHash } from '../tools/stable-hash';
import { ToolRegistry } from '../tools/tool-registry';
import { respond as respondWith, type ScriptedCall } from './fixtures/respond';
import { type ToolStart, TurnEngine } from './turn-engine';

const registry = new ToolRegistry([
  defineTool({
    name: 'read',
    description: 'Reads',
    input: z.object({ path: z.string() }),
    concurrencySafe: true,
    retrySafe: true,
    execute: ({ path }) => path,
  }),
  defineTool({
    name: 'write',
    description: 'Writes',
    input: z.object({ path: z.string() }),
    execute: ({ path }) => path,
  }),
  defineTool({
    name: 'flaky',
    description: 'Fails sometimes',
    input: z.object({}),
    concurrencySafe: true,
    retry: { maxAttempts: 2, initialDelayMs: 100 },
    execute: () => 'ok',
  }),
]);

const read = (id: string, path = id): ScriptedCall => ({ id, name: 'read', args: { path } });
const write = (id: string, path = id): ScriptedCall => ({ id, name: 'write', args: { path } });

function respond(
  engine: TurnEngine,
  responseIndex: number,
  calls: ScriptedCall[],
  text = '',
): JournalEntry[] {
  return respondWith({ engine, registry }, responseIndex, calls, text);
}

const ok = (content: string): AttemptResult => ({ status: 'ok', content, resultHash: stableHash(content) });
const failed = (content: string): AttemptResult => ({
  status: 'error',
  content,
  errorType: 'Error',
  retryable: true,
  resultHash: stableHash(content),
});

function finish(engine: TurnEngine, toolCallId: string, result: AttemptResult, now = 0, attempt = 1) {
  return engine.onToolAttemptFinished({ toolCallId, attempt, result, durationMs: 1, now });
}

function start(config: TurnConfigInput = {}) {
  const started = TurnEngine.start({ turnId: 't', input: 'go', config, now: 0 });
  return { engine: started.engine, journal: [...started.entries] };
}

/** Asks for the next step and expects tools to start; returns `id#attempt` of each. */
function startsOf(engine: TurnEngine, now: number, journal: JournalEntry[]): string[] {
  const step = engine.next(now);
  journal.push(...step.entries);
  if (step.op.kind !== 'run-tools') throw new Error(`expected run-tools, got ${JSON.stringify(step.op)}`);
  return step.op.starts.map((s: ToolStart) => `${s.call.toolCallId}#${s.attempt}`);
}

const summary = (entries: readonly JournalEntry[]) =>
  entries.map((e) => ('toolCallId' in e ? `${e.type} ${e.toolCallId}` : e.type));

describe('TurnEngine transitions', () => {
  it('records an attempt result once when the same result is fed twice', () => {
    const { engine, journal } = start();
    journal.push(...engine.next(0).entries);
    journal.push(...respond(engine, 0, [read('a'), read('b')]));
    expect(startsOf(engine, 1, journal)).toEqual(['a#1', 'b#1']);

    expect(summary(finish(engine, 'a', ok('A')))).toEqual(['tool.attempt_finished a', 'tool.completed a']);
    expect(finish(engine, 'a', ok('A'))).toEqual([]);
    expect(finish(engine, 'a', ok('something else'))).toEqual([]);
    expect(summary(finish(engine, 'b', ok('B')))).toEqual(['tool.attempt_finished b', 'tool.completed b']);
    expect(finish(engine, 'b', ok('B'))).toEqual([]);
    expect(engine.view.outputs.map((o) => o.output.content)).toEqual(['A', 'B']);
  });

  it('ignores a result for an attempt that never started and for a call id it does not know', () => {
    const { engine, journal } = start();
    journal.push(...engine.next(0).entries);
    journal.push(...respond(engine, 0, [read('a')]));
    expect(finish(engine, 'a', ok('A'))).toEqual([]);
    startsOf(engine, 1, journal);
    expect(finish(engine, 'a', ok('A'), 2, 2)).toEqual([]);
    expect(finish(engine, 'nobody', ok('A'))).toEqual([]);
    expect(finish(engine, 'constructor', ok('A'))).toEqual([]);
    expect(engine.runningCalls()).toEqual(['a']);
  });

  it('records results fed in reverse order in batch order', () => {
    const { engine, journal } = start();
    journal.push(...engine.next(0).entries);
    journal.push(...respond(engine, 0, [read('a'), read('b'), read('c')]));
    expect(startsOf(engine, 1, journal)).toEqual(['a#1', 'b#1', 'c#1']);

    expect(summary(finish(engine, 'c', ok('C')))).toEqual(['tool.attempt_finished c']);
    expect(summary(finish(engine, 'b', ok('B')))).toEqual(['tool.attempt_finished b']);
    expect(summary(finish(engine, 'a', ok('A')))).toEqual([
      'tool.attempt_finished a',
      'tool.completed a',
      'tool.completed b',
      'tool.completed c',
    ]);
    const toolMessage = engine.view.messages.at(-1);
    expect(toolMessage?.role === 'tool' && toolMessage.content.map((p) => p.toolCallId)).toEqual([
      'a',
      'b',
      'c',
    ]);
  });

  it('ignores a second response for the same index and a response for another index', () => {
    const { engine } = start();
    engine.next(0);
    expect(respond(engine, 1, [read('a')])).toEqual([]);
    expect(summary(respond(engine, 0, [read('a')]))).toEqual(['model.responded']);
    expect(respond(engine, 0, [read('b')])).toEqual([]);
    expect(engine.view.batch?.calls.map((c) => c.call.toolCallId)).toEqual(['a']);
  });

  it('changes nothing when a finished turn is cancelled', () => {
    const { engine } = start();
    engine.next(0);
    expect(summary(respond(engine, 0, [], 'all done'))).toEqual(['model.responded', 'turn.finished']);
    const before = engine.outcome();

    expect(engine.onCancel({ reason: 'too late' })).toEqual([]);
    expect(engine.outcome()).toEqual(before);
    expect(engine.next(2)).toEqual({ entries: [], op: { kind: 'finished', outcome: before } });
    expect(before).toMatchObject({ status: 'completed', text: 'all done' });
  });

  it('records one halt when a running turn is cancelled twice, and what the running call reports after it', () => {
    const { engine, journal } = start();
    journal.push(...engine.next(0).entries);
    journal.push(...respond(engine, 0, [read('a')]));
    startsOf(engine, 1, journal);
    expect(summary(engine.onCancel({ reason: 'stop' }))).toEqual(['turn.halted']);
    expect(engine.onCancel()).toEqual([]);
    // Nothing new starts; the turn waits for the running call to report.
    expect(engine.next(2)).toEqual({ entries: [], op: { kind: 'wait', approvals: [] } });
    // It finished its effect after the cancel: that is what is recorded, not "interrupted".
    expect(summary(finish(engine, 'a', ok('late')))).toEqual([
      'tool.attempt_finished a',
      'tool.completed a',
      'turn.finished',
    ]);
    expect(engine.outcome()).toMatchObject({
      status: 'cancelled',
      outputs: [{ toolCallId: 'a', status: 'ok', content: 'late' }],
    });
  });

  it('under revision 1 a cancel still marks running calls interrupted at once (turns begun before revision 2 keep it)', () => {
    const started = TurnEngine.start({ turnId: 't', input: 'go', now: 0, revision: 1 });
    const engine = started.engine;
    engine.next(0);
    respond(engine, 0, [read('a')]);
    engine.next(1);
    expect(summary(engine.onCancel({ reason: 'stop' }))).toEqual([
      'turn.halted',
      'tool.completed a',
      'turn.finished',
    ]);
    expect(finish(engine, 'a', ok('late'))).toEqual([]);
    expect(engine.outcome().outputs).toMatchObject([{ status: 'interrupted', errorType: 'cancelled' }]);
  });

  it('a call that fails retryably after the cancel did not finish: interrupted, quoting its failure (revision 3)', () => {
    const { engine, journal } = start();
    journal.push(...engine.next(0).entries);
    journal.push(...respond(engine, 0, [{ id: 'f', name: 'flaky', args: {} }]));
    startsOf(engine, 1, journal);
    engine.onCancel({ reason: 'stop' });
    finish(engine, 'f', failed('transient failure on attempt 1'));
    expect(engine.outcome().outputs).toEqual([
      expect.objectContaining({
        toolCallId: 'f',
        status: 'interrupted',
        attempts: 1,
        errorType: 'cancelled',
        content: expect.stringMatching(
          /^not completed: .*; its last attempt \(1\) failed: transient failure on attempt 1$/,
        ),
      }),
    ]);
  });

  it('a call waiting for its retry at the cancel is interrupted, quoting its last failure; revision 2 recorded neither', () => {
    const outputsUnder = (revision: number, failAfterCancel: boolean) => {
      const engine = TurnEngine.start({ turnId: 't', input: 'go', now: 0, revision }).engine;
      engine.next(0);
      respond(engine, 0, [{ id: 'f', name: 'flaky', args: {} }]);
      engine.next(1);
      if (!failAfterCancel) finish(engine, 'f', failed('boom'), 2);
      engine.onCancel({ reason: 'stop' });
      if (failAfterCancel) finish(engine, 'f', failed('boom'), 3);
      return engine.outcome().outputs.map((o) => [o.status, o.content]);
    };
    expect(outputsUnder(3, false)).toEqual([
      ['interrupted', expect.stringMatching(/; its last attempt \(1\) failed: boom$/)],
    ]);
    expect(outputsUnder(3, true)).toEqual(outputsUnder(3, false));
    expect(outputsUnder(2, false)).toEqual([['interrupted', expect.not.stringContaining('boom')]]);
    expect(outputsUnder(2, true)).toEqual([['error', 'boom']]);
  });

  it('a call the cancel stopped before it reported is interrupted, a call that was waiting is interrupted at once', () => {
    const { engine } = start();
    engine.next(0);
    respond(engine, 0, [read('a'), write('w')]);
    engine.next(1);
    engine.onCancel();
    expect(
      engine.onToolAttemptCancelled({ toolCallId: 'a', attempt: 1, now: 2 }).map((e) => e.type),
    ).toContain('turn.finished');
    expect(engine.outcome().outputs).toMatchObject([
      { toolCallId: 'a', status: 'interrupted', content: 'interrupted: cancelled before it finished' },
      { toolCallId: 'w', status: 'interrupted', errorType: 'cancelled' },
    ]);
  });

  it('retries a transient model failure after the backoff, then fails naming the last answer when attempts run out', () => {
    const { engine } = start({ modelRetry: { maxAttempts: 3, initialDelayMs: 100, backoffCoefficient: 2 } });
    const first = engine.next(0);
    expect(first.op).toMatchObject({ kind: 'call-model', attempt: 1, idempotencyKey: 't/model/0' });
    const failure = { message: 'HTTP 503 upstream busy', retryable: true };
    expect(engine.onModelFailed({ responseIndex: 0, attempt: 1, error: failure, now: 10 })).toEqual([
      {
        type: 'model.attempt_failed',
        responseIndex: 0,
        attempt: 1,
        error: failure.message,
        retryable: true,
        at: 10,
        retryAt: 110,
      },
    ]);
    // A late report of the same attempt changes nothing.
    expect(engine.onModelFailed({ responseIndex: 0, attempt: 1, error: failure, now: 11 })).toEqual([]);
    expect(engine.next(50).op).toEqual({ kind: 'wait', untilMs: 110, approvals: [] });
    expect(engine.next(110).op).toMatchObject({ kind: 'call-model', attempt: 2 });
    engine.onModelFailed({ responseIndex: 0, attempt: 2, error: failure, now: 120 });
    expect(engine.next(200).op).toEqual({ kind: 'wait', untilMs: 320, approvals: [] });
    expect(engine.next(320).op).toMatchObject({ kind: 'call-model', attempt: 3 });
    const last = engine.onModelFailed({ responseIndex: 0, attempt: 3, error: failure, now: 330 });
    expect(summary(last)).toEqual(['model.attempt_failed', 'turn.finished']);
    expect(engine.outcome()).toMatchObject({
      status: 'failed',
      reason: 'model request 0 failed after 3 attempts: HTTP 503 upstream busy',
    });
  });

  it('does not retry a model request the provider rejected, and honours a Retry-After', () => {
    const rejected = start();
    rejected.engine.next(0);
    rejected.engine.onModelFailed({
      responseIndex: 0,
      attempt: 1,
      error: { message: 'HTTP 400 Bad Request: bad tools', retryable: false },
      now: 1,
    });
    expect(rejected.engine.outcome()).toMatchObject({
      status: 'failed',
      reason: 'model request 0 failed: HTTP 400 Bad Request: bad tools',
    });
    const limited = start();
    limited.engine.next(0);
    limited.engine.onModelFailed({
      responseIndex: 0,
      attempt: 1,
      error: { message: 'HTTP 429', retryable: true, retryAfterMs: 7_000 },
      now: 1,
    });
    expect(limited.engine.next(2).op).toEqual({ kind: 'wait', untilMs: 7_001, approvals: [] });
  });

  it('a cancel during a model retry backoff ends the turn cancelled', () => {
    const { engine } = start();
    engine.next(0);
    engine.onModelFailed({
      responseIndex: 0,
      attempt: 1,
      error: { message: 'reset', retryable: true },
      now: 0,
    });
    engine.onCancel();
    expect(engine.outcome()).toMatchObject({ status: 'cancelled' });
  });

  it('a lost attempt of a retry-safe call runs again with the same key, a bounded number of times', () => {
    const { engine } = start();
    engine.next(0);
    respond(engine, 0, [read('a')]);
    let step = engine.next(1);
    const key = step.op.kind === 'run-tools' ? step.op.starts[0]?.idempotencyKey : undefined;
    expect(key).toBe('t/a');
    for (let lost = 1; lost <= 3; lost++) {
      expect(engine.onToolAttemptLost({ toolCallId: 'a', attempt: 1, detail: 'heartbeat timeout' })).toEqual([
        { type: 'tool.attempt_lost', toolCallId: 'a', attempt: 1, rerun: true, detail: 'heartbeat timeout' },
      ]);
      step = engine.next(1 + lost);
      expect(step.op).toMatchObject({ kind: 'run-tools', starts: [{ attempt: 1, idempotencyKey: key }] });
    }
    engine.onToolAttemptLost({ toolCallId: 'a', attempt: 1 });
    expect(engine.view.batch?.calls[0]?.final).toMatchObject({
      status: 'interrupted',
      errorType: 'outcome-unknown',
      content: 'read: outcome unknown after its host was lost 4 times; not retried again',
    });
  });

  it('an attempt its host could not read never ran: a call that is not retry-safe, with one attempt, runs again after a growing wait, and reports one attempt', () => {
    const { engine } = start();
    engine.next(0);
    respond(engine, 0, [write('w')]);
    expect(engine.next(1).op).toMatchObject({ kind: 'run-tools', starts: [{ attempt: 1 }] });
    const notStarted = (now: number) =>
      engine.onToolAttemptNotStarted({ toolCallId: 'w', attempt: 1, detail: 'lacks key k0', now });
    expect(notStarted(10)).toEqual([
      {
        type: 'tool.attempt_not_started',
        toolCallId: 'w',
        attempt: 1,
        detail: 'lacks key k0',
        retryAt: 1_010,
      },
    ]);
    // Nothing runs before the wait is over; then the same attempt number, the same key.
    expect(engine.next(500).op).toMatchObject({ kind: 'wait', untilMs: 1_010 });
    expect(engine.next(1_010).op).toMatchObject({
      kind: 'run-tools',
      starts: [{ attempt: 1, idempotencyKey: 't/w' }],
    });
    // Again: twice the wait.
    expect(notStarted(1_020)[0]).toMatchObject({ retryAt: 3_020 });
    expect(engine.next(3_020).op).toMatchObject({ kind: 'run-tools', starts: [{ attempt: 1 }] });
    expect(summary(finish(engine, 'w', ok('W'), 3_030))).toEqual([
      'tool.attempt_finished w',
      'tool.completed w',
    ]);
    expect(engine.view.outputs[0]?.output).toMatchObject({ status: 'ok', attempts: 1 });
    // A duplicate report for an attempt that is not running changes nothing.
    expect(notStarted(4_000)).toEqual([]);
  });

  it('an attempt its host could not read, reported after the turn was cancelled, gets an interrupted output saying it never started', () => {
    const { engine } = start();
    engine.next(0);
    respond(engine, 0, [write('w')]);
    engine.next(1);
    engine.onCancel({ reason: 'stop' });
    expect(
      engine.onToolAttemptNotStarted({ toolCallId: 'w', attempt: 1, detail: 'lacks key k0', now: 5 }),
    ).toEqual(
      expect.arrayContaining([
        { type: 'tool.attempt_not_started', toolCallId: 'w', attempt: 1, detail: 'lacks key k0' },
      ]),
    );
    expect(engine.view.batch?.calls[0]?.final).toMatchObject({
      status: 'interrupted',
      attempts: 0,
      content: expect.stringMatching(/^not completed: .*\(the call never started: lacks key k0\)$/),
    });
  });

  it('a lost attempt of a call that is not retry-safe gets the same explicit output as after a crash', () => {
    const { engine } = start();
    engine.next(0);
    respond(engine, 0, [write('w')]);
    engine.next(1);
    engine.onToolAttemptLost({ toolCallId: 'w', attempt: 1, detail: 'activity StartToClose timeout' });
    const crashed = start();
    crashed.engine.next(0);
    respond(crashed.engine, 0, [write('w')]);
    crashed.engine.next(1);
    crashed.engine.onResume();
    expect(engine.view.batch?.calls[0]?.final).toEqual(crashed.engine.view.batch?.calls[0]?.final);
    expect(engine.view.batch?.calls[0]?.final).toMatchObject({
      status: 'interrupted',
      content:
        'write: outcome unknown after its host was lost; not retried because the tool is not retry-safe',
    });
  });

  it('a request whose host was lost after calls were accepted leaves the same partial response as a crash', () => {
    const streamed = (engine: TurnEngine) => {
      engine.next(0);
      const call = buildModelResponse({
        collected: {
          parts: [],
          calls: [{ toolCallId: 'a', toolName: 'read', input: '{"path":"a"}' }],
          usage: { inputTokens: 0, outputTokens: 0 },
          finishReason: 'unknown',
          complete: false,
        },
        registry,
        responseIndex: 0,
      }).calls[0];
      if (!call) throw new Error('no call');
      engine.onCallStreamed({ responseIndex: 0, call });
    };
    const lost = start().engine;
    streamed(lost);
    lost.onModelFailed({
      responseIndex: 0,
      attempt: 1,
      error: { message: 'activity Heartbeat timeout', retryable: true, lost: true },
      now: 1,
    });
    const crashed = start().engine;
    streamed(crashed);
    crashed.onResume();
    expect(lost.view.messages.at(-1)).toEqual(crashed.view.messages.at(-1));
    expect(lost.view.messages.at(-1)).toMatchObject({
      partial: { reason: 'the host was lost while the response streamed' },
    });
  });

  it('gives every start the turn’s default tool timeout when the tool sets none', () => {
    const { engine } = start({ timeouts: { toolMs: 1234 } });
    engine.next(0);
    respond(engine, 0, [read('a')]);
    expect(engine.next(1).op).toMatchObject({ kind: 'run-tools', starts: [{ timeoutMs: 1234 }] });
  });

  it('escapes ids in idempotency keys so different turns and calls never share one', () => {
    const keyOf = (turnId: string, callId: string) => {
      const engine = TurnEngine.start({ turnId, input: 'go', now: 0 }).engine;
      engine.next(0);
      respond(engine, 0, [read(callId)]);
      const step = engine.next(1);
      return step.op.kind === 'run-tools' ? step.op.starts[0]?.idempotencyKey : undefined;
    };
    expect(keyOf('X', 'p/q')).not.toBe(keyOf('X/p', 'q'));
    const modelOp = TurnEngine.start({ turnId: 'X', input: 'go', now: 0 }).engine.next(0).op;
    expect(modelOp).toMatchObject({ kind: 'call-model', idempotencyKey: 'X/model/0' });
    expect(keyOf('X', 'model/0')).toBe('X/model%2F0');
    expect(keyOf('plain', 'call_1')).toBe('plain/call_1');
  });

  it('refuses to replay an empty journal', () => {
    expect(() => TurnEngine.replay([])).toThrow(/turn\.started/);
  });
});

describe('TurnEngine timing of responses', () => {
  it('records when a response ended, given the time, just before the response; the turn goes on the same without it', () => {
    const timed = start();
    timed.engine.next(1);
    const collector = new ResponseCollector();
    collector.add({ type: 'text-delta', delta: 'done' });
    collector.add({ type: 'finish', finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } });
    const response = buildModelResponse({
      collected: collector.result(),
      registry,
      responseIndex: 0,
      priorCallIds: new Set<string>(),
    });
    const entries = timed.engine.onModelResponded(response, 42);
    expect(entries.slice(0, 2)).toEqual([
      { type: 'model.response_ended', responseIndex: 0, at: 42 },
      expect.objectContaining({ type: 'model.responded', responseIndex: 0 }),
    ]);
    const untimed = start();
    untimed.engine.next(1);
    expect(untimed.engine.onModelResponded(response)).toEqual(entries.slice(1));
    expect(untimed.engine.outcome()).toEqual(timed.engine.outcome());
  });
});

describe('TurnEngine replay', () => {
  /** One turn as a list of inputs: a wave, a barrier, a retry with backoff, a second response, the end. */
  const inputs: ((engine: TurnEngine) => JournalEntry[])[] = [
    (e) => e.next(1).entries,
    (e) => respond(e, 0, [read('a'), { id: 'f', name: 'flaky', args: {} }, write('w'), read('b')], 'reading'),
    (e) => e.next(2).entries,
    (e) => finish(e, 'f', failed('flaked'), 3),
    (e) => finish(e, 'a', ok('A'), 4),
    (e) => e.next(5).entries,
    (e) => e.next(103).entries,
    (e) => finish(e, 'f', ok('F'), 104, 2),
    (e) => e.next(105).entries,
    (e) => finish(e, 'w', ok('W'), 106),
    (e) => e.next(107).entries,
    (e) => finish(e, 'b', ok('B'), 108),
    (e) => e.next(109).entries,
    (e) => respond(e, 1, [], 'done'),
    (e) => e.next(110).entries,
  ];

  it('rebuilds, from any prefix of the journal, an engine that goes on to produce the same entries', () => {
    const live = start();
    const produced = inputs.map((input) => input(live.engine));
    expect(live.engine.outcome()).toMatchObject({ status: 'completed', text: 'done' });
    expect(live.engine.view.outputs.map((o) => [o.toolCallId, o.output.attempts])).toEqual([
      ['a', 1],
      ['f', 2],
      ['w', 1],
      ['b', 1],
    ]);

    for (let k = 0; k <= inputs.length; k++) {
      const replayed = TurnEngine.replay([...live.journal, ...produced.slice(0, k).flat()]);
      const rest = inputs.slice(k).map((input) => input(replayed));
      expect(rest).toEqual(produced.slice(k));
      expect(replayed.outcome()).toEqual(live.engine.outcome());
    }
  });

  it('gives a replayed engine the same outcome and transcript as the live one', () => {
    const live = start();
    const entries = [...live.journal, ...inputs.flatMap((input) => input(live.engine))];
    const replayed = TurnEngine.replay(JSON.parse(JSON.stringify(entries)) as JournalEntry[]);
    expect(replayed.outcome()).toEqual(live.engine.outcome());
    expect(replayed.view.messages).toEqual(live.engine.view.messages);
  });
});

describe('TurnEngine resume', () => {
  it('reruns a retry-safe call that was running and gives a non-retry-safe one an outcome-unknown output', () => {
    const { engine, journal } = start();
    journal.push(...engine.next(0).entries);
    journal.push(...respond(engine, 0, [read('a'), read('b'), { id: 'f', name: 'flaky', args: {} }]));
    expect(startsOf(engine, 1, journal)).toEqual(['a#1', 'b#1', 'f#1']);
    journal.push(...finish(engine, 'a', ok('A'), 2));

    const resumed = TurnEngine.replay(journal);
    expect(resumed.onResume()).toEqual([
      { type: 'tool.attempt_lost', toolCallId: 'b', attempt: 1, rerun: true },
      { type: 'tool.attempt_lost', toolCallId: 'f', attempt: 1, rerun: false },
    ]);
    expect(resumed.onResume()).toEqual([]);
    expect(startsOf(resumed, 3, [])).toEqual(['b#1']);
    expect(summary(finish(resumed, 'b', ok('B'), 4))).toEqual([
      'tool.attempt_finished b',
      'tool.completed b',
      'tool.completed f',
    ]);
    expect(resumed.view.outputs.map((o) => [o.toolCallId, o.output.status, o.output.errorType])).toEqual([
      ['a', 'ok', undefined],
      ['b', 'ok', undefined],
      ['f', 'interrupted', 'outcome-unknown'],
    ]);
  });

  it('ends a halted turn whose retry-safe call was caught running instead of waiting forever', () => {
    // The wall-time budget runs out while `slow` is still running; the host dies before it finishes.
    const { engine, journal } = start({ budget: { maxWallTimeMs: 1_000 } });
    journal.push(...engine.next(0).entries);
    journal.push(...respond(engine, 0, [read('slow'), read('fast')]));
    startsOf(engine, 1, journal);
    journal.push(...finish(engine, 'fast', ok('F'), 2_000));
    expect(engine.view.halt?.reason).toBe('budget_exhausted');

    const resumed = TurnEngine.replay(journal);
    resumed.onResume();
    const step = resumed.next(3_000);
    expect(step.op.kind).toBe('finished');
    expect(resumed.outcome()).toMatchObject({
      status: 'budget_exhausted',
      outputs: [
        { toolCallId: 'slow', status: 'interrupted' },
        { toolCallId: 'fast', status: 'ok' },
      ],
    });
  });
});

describe('TurnEngine approvals', () => {
  it('does not start a running call a second time when an approval arrives for it', () => {
    const { engine, journal } = start();
    journal.push(...engine.next(0).entries);
    journal.push(...respond(engine, 0, [read('a')]));
    expect(startsOf(engine, 1, journal)).toEqual(['a#1']);

    engine.onApprovalEvent({ kind: 'approval', toolCallId: 'a', decision: 'approve' }, 0);
    const step = engine.next(2);
    expect(step.op.kind).toBe('wait');
    expect(engine.runningCalls()).toEqual(['a']);
  });
});

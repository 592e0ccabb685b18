import { z } from 'zod';
import { buildModelResponse } from '../model/build-response';
import type { AttemptResult } from '../schema/attempt-result';
import type { JournalEntry } from '../schema/journal-entry';
import { isTranscriptEvent, type TranscriptEvent } from '../schema/journal-entry';
import type { TurnConfigInput } from '../schema/turn-config';
import { defineTool } from '../tools/define-tool';
import { stableHash } from '../tools/stable-hash';
import { ToolRegistry } from '../tools/tool-registry';
import { respond as respondWith } from './fixtures/respond';
import { messagesFromEvents, outputsFromEvents } from './messages-from-events';
import { type Step, TurnEngine } from './turn-engine';
import { transcriptProblems } from './validate-transcript';

const registry = new ToolRegistry([
  defineTool({
    name: 'build',
    description: 'A long build in the background',
    input: z.object({ target: z.string() }),
    concurrencySafe: true,
    resources: ({ target }) => [`workspace:${target}`],
    background: true,
    execute: () => 'built',
  }),
  defineTool({
    name: 'crawl',
    description: 'A retry-safe background crawl that may fail once',
    input: z.object({}),
    concurrencySafe: true,
    retrySafe: true,
    retry: { maxAttempts: 2, initialDelayMs: 100 },
    background: true,
    execute: () => 'crawled',
  }),
  defineTool({
    name: 'deploy',
    description: 'A background call that is not retry-safe',
    input: z.object({}),
    concurrencySafe: true,
    background: true,
    execute: () => 'deployed',
  }),
  defineTool({
    name: 'edit',
    description: 'Touches a workspace',
    input: z.object({ target: z.string() }),
    concurrencySafe: true,
    resources: ({ target }) => [`workspace:${target}`],
    execute: () => 'edited',
  }),
  defineTool({
    name: 'read',
    description: 'Reads',
    input: z.object({}),
    concurrencySafe: true,
    execute: () => 'read',
  }),
  defineTool({
    name: 'migrate',
    description: 'Not concurrency-safe',
    input: z.object({}),
    execute: () => 'ok',
  }),
]);

type Call = [id: string, name: string, args?: unknown];

function respond(engine: TurnEngine, calls: Call[], text = ''): JournalEntry[] {
  const scripted = calls.map(([id, name, args = {}]) => ({ id, name, args }));
  return respondWith({ engine, registry }, engine.view.responseIndex, scripted, text);
}

const ok = (content: string): AttemptResult => ({ status: 'ok', content, resultHash: stableHash(content) });

/** A turn and its journal: every entry the engine returns is appended, as a host persists it. */
function turn(config: TurnConfigInput = {}) {
  const started = TurnEngine.start({ turnId: 't', input: 'go', config, now: 0 });
  const engine = started.engine;
  const journal: JournalEntry[] = [...started.entries];
  const keep = (entries: JournalEntry[]) => {
    journal.push(...entries);
    return entries;
  };
  return {
    engine,
    journal,
    step(now: number): Step {
      const step = engine.next(now);
      keep(step.entries);
      return step;
    },
    respond: (calls: Call[], text = '') => keep(respond(engine, calls, text)),
    finish: (id: string, result: AttemptResult, now: number, attempt = 1) =>
      keep(engine.onToolAttemptFinished({ toolCallId: id, attempt, result, durationMs: 1, now })),
    /** The steps' operations, summarised, until the engine asks for something these do not give. */
    starts(now: number): string[] {
      const step = this.step(now);
      if (step.op.kind !== 'run-tools') throw new Error(`expected run-tools, got ${JSON.stringify(step.op)}`);
      return step.op.starts.map((s) => `${s.call.toolCallId}#${s.attempt}`);
    },
    events: () => journal.filter(isTranscriptEvent) as TranscriptEvent[],
  };
}

const kinds = (entries: readonly JournalEntry[]) =>
  entries.map((e) => ('toolCallId' in e ? `${e.type} ${e.toolCallId}` : e.type));

function lastUserParts(engine: TurnEngine): string[] {
  const message = engine.view.messages.at(-1);
  if (message?.role !== 'user' || typeof message.content === 'string') throw new Error('no delivery last');
  return message.content.map((p) => (p.type === 'text' ? p.text : ''));
}

describe('background calls', () => {
  it('get a tool result saying they run in the background the moment they start; the turn goes on, and the output is delivered at the next model request', () => {
    const t = turn();
    t.step(0);
    t.respond([
      ['b', 'build', { target: 'app' }],
      ['r', 'read'],
    ]);
    const started = t.step(1);
    expect(started.op.kind === 'run-tools' && started.op.starts.map((s) => s.call.toolCallId)).toEqual([
      'b',
      'r',
    ]);
    // The build's placeholder is its result from the moment it starts.
    expect(kinds(started.entries)).toEqual([
      'tool.attempt_started b',
      'tool.attempt_started r',
      'tool.completed b',
    ]);
    // The read finishes: the batch closes; the model is asked again while the build runs.
    expect(kinds(t.finish('r', ok('file'), 2))).toEqual(['tool.attempt_finished r', 'tool.completed r']);
    const tool = t.engine.view.messages.at(-1);
    expect(tool?.role === 'tool' && tool.content[0]?.output.content).toMatch(
      /build is running in the background as call b; its output will be delivered in a later message/,
    );
    expect(t.step(3).op.kind).toBe('call-model');
    // It finishes while the model answers: nothing is delivered into a request in flight.
    expect(kinds(t.finish('b', ok('built app'), 4))).toEqual(['tool.attempt_finished b']);
    t.respond([['r2', 'read']]);
    expect(t.starts(5)).toEqual(['r2#1']);
    expect(kinds(t.finish('r2', ok('more'), 6))).toEqual([
      'tool.attempt_finished r2',
      'tool.completed r2',
      'background.delivered',
    ]);
    expect(lastUserParts(t.engine)).toEqual(['Background call b (build) finished:\nbuilt app']);
    expect(t.step(7).op.kind).toBe('call-model');
    expect(kinds(t.respond([], 'done'))).toEqual(['model.responded', 'turn.finished']);

    const outcome = t.engine.outcome();
    expect(outcome.status).toBe('completed');
    // One output per call, the background one's true output in its place.
    expect(outcome.outputs.map((o) => [o.toolCallId, o.content])).toEqual([
      ['b', 'built app'],
      ['r', 'file'],
      ['r2', 'more'],
    ]);
    expect(transcriptProblems(outcome.transcript)).toEqual([]);
    // The events rebuild the same messages, and a replay the same state.
    expect(messagesFromEvents(t.events())).toEqual(t.engine.view.messages);
    expect(outputsFromEvents(t.events())).toEqual(outcome.outputs);
    expect(TurnEngine.replay(t.journal).outcome()).toEqual(outcome);
  });

  it('when the model answers without calls while one runs, the turn waits for it, then asks the model again with its output', () => {
    const t = turn();
    t.step(0);
    t.respond([['b', 'build', { target: 'app' }]]);
    expect(t.starts(1)).toEqual(['b#1']);
    expect(t.step(2).op.kind).toBe('call-model');
    expect(kinds(t.respond([], 'I will wait for the build'))).toEqual(['model.responded']);
    const wait = t.step(3);
    expect(wait.op).toEqual({ kind: 'wait', approvals: [] });
    expect(kinds(wait.entries)).toEqual(['background.waiting']);
    expect(kinds(t.finish('b', ok('built'), 500))).toEqual([
      'tool.attempt_finished b',
      'background.delivered',
    ]);
    expect(t.step(501).op.kind).toBe('call-model');
    t.respond([], 'the build is done');
    expect(t.engine.outcome()).toMatchObject({
      status: 'completed',
      text: 'the build is done',
      modelResponses: 3,
    });
  });

  it('cancelled while a request waits for its summary (the provider said too long) and a background call runs: neither request is sent; the call ends, then the turn', () => {
    const t = turn({ compaction: {} });
    t.step(0);
    t.respond([
      ['b', 'build', { target: 'app' }],
      ['r', 'read'],
    ]);
    expect(t.starts(1)).toEqual(['b#1', 'r#1']);
    t.finish('r', ok('file'), 2);
    expect(t.step(3).op.kind).toBe('call-model');
    t.respond([['r2', 'read']]);
    expect(t.starts(3)).toEqual(['r2#1']);
    t.finish('r2', ok('more'), 3);
    expect(t.step(3).op.kind).toBe('call-model');
    const overflow = { message: 'prompt is too long', retryable: false, kind: 'context-overflow' as const };
    t.engine.onModelFailed({ responseIndex: 2, attempt: 1, error: overflow, now: 4 });
    expect(t.step(5).op.kind).toBe('compact');
    // The summary request is stopped by the cancel (it reports nothing); the build goes on.
    t.engine.onCancel({ reason: 'the user left' });
    const waiting = t.step(6);
    expect(waiting.op.kind).toBe('wait');
    t.finish('b', ok('built'), 7);
    const end = t.step(8);
    expect(end.op.kind).toBe('finished');
    expect(t.engine.outcome()).toMatchObject({ status: 'cancelled' });
    expect(t.engine.outcome().outputs.map((o) => [o.toolCallId, o.content])).toEqual([
      ['b', 'built'],
      ['r', 'file'],
      ['r2', 'more'],
    ]);
  });

  it('delivers outputs that finish together in one message, in launch order, whatever order they finished in', () => {
    const t = turn();
    t.step(0);
    t.respond([
      ['b', 'build', { target: 'a' }],
      ['c', 'crawl'],
    ]);
    expect(t.starts(1)).toEqual(['b#1', 'c#1']);
    expect(t.step(2).op.kind).toBe('call-model');
    t.finish('c', ok('crawled'), 3);
    t.finish('b', ok('built'), 4);
    expect(kinds(t.respond([], 'waiting'))).toEqual(['model.responded', 'background.delivered']);
    expect(lastUserParts(t.engine)).toEqual([
      'Background call b (build) finished:\nbuilt',
      'Background call c (crawl) finished:\ncrawled',
    ]);
  });

  it('a call that conflicts with a running background call waits for it, in later responses too', () => {
    const t = turn();
    t.step(0);
    t.respond([['b', 'build', { target: 'app' }]]);
    expect(t.starts(1)).toEqual(['b#1']);
    expect(t.step(2).op.kind).toBe('call-model');
    // Same workspace: waits. Another workspace and a plain read: run. Not concurrency-safe: waits.
    t.respond([
      ['e1', 'edit', { target: 'app' }],
      ['e2', 'edit', { target: 'lib' }],
      ['r', 'read'],
    ]);
    expect(t.starts(3)).toEqual(['e2#1', 'r#1']);
    t.finish('e2', ok('edited'), 4);
    t.finish('r', ok('read'), 4);
    expect(t.step(5).op).toEqual({ kind: 'wait', approvals: [] });
    t.finish('b', ok('built'), 6);
    expect(t.starts(7)).toEqual(['e1#1']);
    t.finish('e1', ok('edited'), 8);
    expect(t.engine.view.messages.at(-1)?.role).toBe('user');

    const u = turn();
    u.step(0);
    u.respond([
      ['b', 'build', { target: 'app' }],
      ['m', 'migrate'],
    ]);
    // The unsafe call is a wave of its own after the build; it waits for the build to finish.
    expect(u.starts(1)).toEqual(['b#1']);
    expect(u.step(2).op).toEqual({ kind: 'wait', approvals: [] });
    u.finish('b', ok('built'), 3);
    expect(u.starts(4)).toEqual(['m#1']);
  });

  it('a failed attempt is retried by its policy from the background, and the retry is what is delivered', () => {
    const t = turn();
    t.step(0);
    t.respond([['c', 'crawl']]);
    expect(t.starts(1)).toEqual(['c#1']);
    expect(t.step(2).op.kind).toBe('call-model');
    t.respond([], 'waiting');
    t.step(3);
    t.finish(
      'c',
      { status: 'error', content: 'reset', errorType: 'Error', retryable: true, resultHash: 'x' },
      10,
    );
    const wait = t.step(11);
    expect(wait.op).toEqual({ kind: 'wait', approvals: [], untilMs: 110 });
    expect(t.starts(110)).toEqual(['c#2']);
    expect(kinds(t.finish('c', ok('crawled'), 120, 2))).toEqual([
      'tool.attempt_finished c',
      'background.delivered',
    ]);
    expect(t.engine.view.outputs[0]?.output).toMatchObject({ status: 'ok', content: 'crawled', attempts: 2 });
  });

  it('maxBackgroundWaitMs bounds the wait: running calls are stopped, what they report is delivered, and the model is asked again', () => {
    const t = turn({ timeouts: { maxBackgroundWaitMs: 1_000 } });
    t.step(0);
    t.respond([['b', 'build', { target: 'app' }]]);
    t.starts(1);
    t.step(2);
    t.respond([], 'waiting');
    expect(t.step(100).op).toEqual({ kind: 'wait', approvals: [], untilMs: 1_100 });
    const stop = t.step(1_100);
    expect(kinds(stop.entries)).toEqual(['background.stopped']);
    expect(stop.op).toEqual({ kind: 'wait', approvals: [], stop: ['b'] });
    // Aborted, the attempt reports interrupted; the engine's words say why, on every executor.
    t.finish('b', { status: 'interrupted', content: 'aborted', errorType: 'cancelled' }, 1_200);
    expect(lastUserParts(t.engine)).toEqual([
      'Background call b (build) did not finish:\n[interrupted: cancelled] not completed: the turn waited 1000 ms (maxBackgroundWaitMs) for it to finish in the background',
    ]);
    expect(t.step(1_201).op.kind).toBe('call-model');
    t.respond([], 'the build did not finish in time');
    expect(t.engine.outcome()).toMatchObject({
      status: 'completed',
      outputs: [{ toolCallId: 'b', status: 'interrupted' }],
    });
  });

  it('a background call that finished its work while being stopped is delivered as done', () => {
    const t = turn({ timeouts: { maxBackgroundWaitMs: 10 } });
    t.step(0);
    t.respond([['b', 'build', { target: 'app' }]]);
    t.starts(1);
    t.step(2);
    t.respond([]);
    t.step(3);
    expect(t.step(20).op).toMatchObject({ stop: ['b'] });
    t.finish('b', ok('built just in time'), 21);
    expect(lastUserParts(t.engine)).toEqual(['Background call b (build) finished:\nbuilt just in time']);
  });

  it('a cancel stops background calls; their outputs are delivered before the turn ends cancelled', () => {
    const t = turn();
    t.step(0);
    t.respond([
      ['b', 'build', { target: 'app' }],
      ['c', 'crawl'],
    ]);
    t.starts(1);
    t.finish(
      'c',
      { status: 'error', content: 'reset', errorType: 'Error', retryable: true, resultHash: 'x' },
      2,
    );
    expect(t.step(3).op.kind).toBe('call-model');
    t.respond([], 'waiting');
    t.step(4);
    // The crawl waits for its retry: interrupted at once, saying how it last failed. The build
    // runs: stopped, and awaited.
    expect(kinds(t.engine.onCancel({ reason: 'operator stopped it' }))).toEqual([
      'turn.halted',
      'background.delivered',
    ]);
    expect(t.step(5).op).toEqual({ kind: 'wait', approvals: [], stop: ['b'] });
    expect(
      kinds(t.finish('b', { status: 'interrupted', content: 'aborted', errorType: 'cancelled' }, 6)),
    ).toEqual(['tool.attempt_finished b', 'background.delivered', 'turn.finished']);
    const outcome = t.engine.outcome();
    expect(outcome.status).toBe('cancelled');
    expect(outcome.outputs.map((o) => [o.toolCallId, o.status, o.content])).toEqual([
      ['b', 'interrupted', 'not completed: operator stopped it'],
      ['c', 'interrupted', 'not completed: operator stopped it; its last attempt (1) failed: reset'],
    ]);
    expect(transcriptProblems(outcome.transcript)).toEqual([]);
  });

  it('the wall-time budget bounds the wait too', () => {
    const t = turn({ budget: { maxWallTimeMs: 5_000 } });
    t.step(0);
    t.respond([['b', 'build', { target: 'app' }]]);
    t.starts(1);
    t.step(2);
    t.respond([]);
    t.step(3);
    const halted = t.step(6_000);
    expect(kinds(halted.entries)).toEqual(['turn.halted']);
    expect(halted.op).toEqual({ kind: 'wait', approvals: [], stop: ['b'] });
    t.finish('b', { status: 'interrupted', content: 'aborted', errorType: 'cancelled' }, 6_100);
    expect(t.engine.outcome()).toMatchObject({ status: 'budget_exhausted' });
  });

  it('after a lost host, a retry-safe background call runs again with the same key; any other is delivered as outcome unknown', () => {
    const t = turn();
    t.step(0);
    t.respond([
      ['c', 'crawl'],
      ['d', 'deploy'],
    ]);
    t.starts(1);
    t.step(2);
    t.respond([], 'waiting');
    t.step(3);
    const resumed = TurnEngine.replay(t.journal);
    const entries = resumed.onResume();
    expect(kinds(entries)).toEqual(['tool.attempt_lost c', 'tool.attempt_lost d', 'background.delivered']);
    const step = resumed.next(4);
    expect(step.op.kind === 'run-tools' && step.op.starts.map((s) => [s.call.toolCallId, s.attempt])).toEqual(
      [['c', 1]],
    );
    const message = resumed.view.messages.at(-1);
    expect(message?.role === 'user' && message.content).toEqual([
      {
        type: 'text',
        text: 'Background call d (deploy) did not finish:\n[interrupted: outcome-unknown] deploy: outcome unknown after its host was lost; not retried because the tool is not retry-safe',
      },
    ]);
    // The delivery gave the model something new: once the crawl is running again, it is asked.
    expect(resumed.next(5).op.kind).toBe('call-model');
  });

  it('carries across a snapshot while it runs (continue-as-new), and the restored turn delivers it', () => {
    const t = turn();
    t.step(0);
    t.respond([
      ['b', 'build', { target: 'app' }],
      ['d', 'deploy'],
    ]);
    t.starts(1);
    t.finish('d', ok('deployed'), 2);
    expect(t.step(3).op.kind).toBe('call-model');
    t.respond([['r', 'read']]);
    t.starts(4);
    t.finish('r', ok('read'), 5);
    // Delivered: d. Still running: b.
    const restored = TurnEngine.restore(JSON.parse(JSON.stringify(t.engine.snapshot())));
    expect(restored.runningCalls()).toEqual(['b']);
    expect(restored.view.outputs.map((o) => [o.toolCallId, o.output.content])).toEqual(
      t.engine.view.outputs.map((o) => [o.toolCallId, o.output.content]),
    );
    restored.next(6);
    restored.onModelResponded({
      responseIndex: restored.view.responseIndex,
      message: { role: 'assistant', content: [{ type: 'text', text: 'waiting' }] },
      calls: [],
      usage: { inputTokens: 1, outputTokens: 1 },
      finishReason: 'stop',
    });
    restored.next(7);
    const delivered = restored.onToolAttemptFinished({
      toolCallId: 'b',
      attempt: 1,
      result: ok('built'),
      durationMs: 1,
      now: 8,
    });
    expect(kinds(delivered)).toEqual(['tool.attempt_finished b', 'background.delivered']);
    expect(restored.view.outputs.map((o) => [o.toolCallId, o.output.content])).toEqual([
      ['b', 'built'],
      ['d', 'deployed'],
      ['r', 'read'],
    ]);
  });

  it('a hook that asks for approval holds the background call; the decision starts it again, from the background', () => {
    const t = turn({ approvals: { timeoutMs: 60_000 } });
    t.step(0);
    t.respond([['b', 'build', { target: 'app' }]]);
    expect(t.starts(1)).toEqual(['b#1']);
    t.finish('b', { status: 'needs-approval', reason: 'builds of app need a person' }, 2);
    expect(t.step(3).op.kind).toBe('call-model');
    t.respond([], 'waiting');
    const wait = t.step(4);
    expect(wait.op).toMatchObject({
      kind: 'wait',
      approvals: [{ toolCallId: 'b', reason: 'builds of app need a person' }],
      untilMs: 60_004,
    });
    t.engine.onApprovalEvent({ kind: 'approval', toolCallId: 'b', decision: 'approve' }, 0);
    expect(t.starts(5)).toEqual(['b#1']);
    expect(kinds(t.finish('b', ok('built'), 6))).toEqual(['tool.attempt_finished b', 'background.delivered']);

    // Rejected instead: the rejection is what is delivered.
    const u = turn();
    u.step(0);
    u.respond([['b', 'build', { target: 'app' }]]);
    u.starts(1);
    u.finish('b', { status: 'needs-approval', reason: 'needs a person' }, 2);
    u.step(3);
    u.respond([], 'waiting');
    u.step(4);
    expect(
      kinds(
        u.engine.onApprovalEvent(
          { kind: 'approval', toolCallId: 'b', decision: 'reject', reason: 'not today' },
          0,
        ),
      ),
    ).toEqual(['tool.approval_decided b', 'background.delivered']);
    expect(lastUserParts(u.engine)).toEqual([
      'Background call b (build) failed:\n[error: rejected] the call was rejected by an approver: not today',
    ]);
  });

  it('loop detection sees a background call when its output is delivered', () => {
    const t = turn({ detection: { warnAfter: 2, stopAfter: 10 } });
    t.step(0);
    for (const [i, id] of ['b1', 'b2'].entries()) {
      t.respond([[id, 'build', { target: 'app' }]]);
      t.starts(1 + i * 10);
      t.step(2 + i * 10);
      t.respond([], 'waiting');
      t.step(3 + i * 10);
      t.finish(id, ok('built'), 4 + i * 10);
      expect(t.step(5 + i * 10).op.kind).toBe('call-model');
    }
    const delivered = t.engine.view.outputs.find((o) => o.toolCallId === 'b2')?.output;
    expect(delivered?.notice).toMatch(/same/i);
    expect(lastUserParts(t.engine)[0]).toContain(delivered?.notice ?? 'no notice');
    // The events and the replay agree on it.
    expect(TurnEngine.replay(t.journal).view.outputs).toEqual(t.engine.view.outputs);
  });

  it('starts the moment its arguments are complete in the stream; its placeholder is recorded once the response ends', () => {
    const t = turn();
    t.step(0);
    const call = buildModelResponse({
      collected: {
        parts: [],
        calls: [{ toolCallId: 'b', toolName: 'build', input: '{"target":"app"}' }],
        usage: { inputTokens: 1, outputTokens: 1 },
        finishReason: 'tool-calls',
        complete: true,
      },
      registry,
      responseIndex: 0,
    }).calls[0];
    if (!call) throw new Error('no call');
    t.engine.onCallStreamed({ responseIndex: 0, call });
    const { entries, starts } = t.engine.streamStarts(1);
    expect(starts.map((s) => s.call.toolCallId)).toEqual(['b']);
    // Nothing is recorded into a response still streaming.
    expect(kinds(entries)).toEqual(['tool.attempt_started b']);
    const ended = t.engine.onModelResponded({
      responseIndex: 0,
      message: { role: 'assistant', content: [] },
      calls: [],
      usage: { inputTokens: 1, outputTokens: 1 },
      finishReason: 'tool-calls',
      streamedCallCount: 1,
    });
    expect(kinds(ended)).toEqual(['model.responded', 'tool.completed b']);
  });

  it('in sequential mode the calls after a background call do not wait for it (unless they conflict)', () => {
    const t = turn({ dispatch: { mode: 'sequential' } });
    t.step(0);
    t.respond([
      ['b', 'build', { target: 'app' }],
      ['r', 'read'],
      ['e', 'edit', { target: 'app' }],
    ]);
    expect(t.starts(1)).toEqual(['b#1']);
    expect(t.starts(2)).toEqual(['r#1']);
    t.finish('r', ok('read'), 3);
    // The edit shares the build's workspace: it waits for the build.
    expect(t.step(4).op).toEqual({ kind: 'wait', approvals: [] });
    t.finish('b', ok('built'), 5);
    expect(t.starts(6)).toEqual(['e#1']);
  });
});

import {
  InProcessExecutor,
  MemoryJournal,
  type ScriptedPart,
  scriptedModel,
  type TurnJournal,
  type TurnWatchEvent,
} from 'durable-turns';
import { collect, entriesOf, recordedText, shownText } from '../test/conformance/watched';
import { gatedScript, gatedTool } from '../test/support/executors/resume-fixtures';

// What watch yields on both executors is specified once, in test/conformance/watch.cases.ts. These
// are what only the in-process executor does: how it treats a slow watcher, finished and resumed
// turns, and turns it does not run.

const deltas = ({ count, delayMs }: { count: number; delayMs: number }): ScriptedPart[] =>
  Array.from({ length: count }, (_, i) => ({ type: 'text-delta' as const, delta: `w${i} `, delayMs }));
const answer = (count: number) => Array.from({ length: count }, (_, i) => `w${i} `).join('');
const finish: ScriptedPart = {
  type: 'finish',
  finishReason: 'stop',
  usage: { inputTokens: 1, outputTokens: 1 },
};

const textDeltas = (events: readonly TurnWatchEvent[]) =>
  events.flatMap((e) => (e.kind === 'delta' && e.channel === 'text' ? [e.delta] : []));

describe('InProcessExecutor.watch', () => {
  it('gives a watcher that keeps up each delta as the model streams it', async () => {
    const executor = new InProcessExecutor({
      tools: [],
      model: scriptedModel([{ parts: [...deltas({ count: 20, delayMs: 2 }), finish] }]),
    });
    const result = executor.runTurn({ turnId: 'keeps-up', input: 'go' });
    const events = await collect(executor.watch('keeps-up'));
    expect((await result).text).toBe(answer(20));
    // Each delta came after a timer, so a watcher woken by each one saw it on its own.
    expect(textDeltas(events)).toEqual(
      deltas({ count: 20, delayMs: 0 }).map((p) => (p as { delta: string }).delta),
    );
    expect(shownText(events)).toEqual(recordedText(events));
  });

  it('starts a retried request over as soon as its new attempt streams, before any of its text', async () => {
    let asked = 0;
    const executor = new InProcessExecutor({
      tools: [],
      modelRetry: { maxAttempts: 2, initialDelayMs: 5 },
      model: scriptedModel([
        () => {
          asked += 1;
          const delta = (text: string): ScriptedPart => ({ type: 'text-delta', delta: text, delayMs: 2 });
          return asked === 1
            ? {
                parts: [
                  delta('draft '),
                  { type: 'error', message: 'connection reset', retryable: true, delayMs: 2 },
                ],
              }
            : { parts: [delta('final '), delta('answer'), finish] };
        },
      ]),
    });
    const result = executor.runTurn({ turnId: 'retried', input: 'go' });
    const events = await collect(executor.watch('retried'));
    expect((await result).text).toBe('final answer');
    expect(events.filter((e) => e.kind !== 'entry')).toEqual([
      { kind: 'delta', responseIndex: 0, channel: 'text', offset: 0, delta: 'draft ' },
      { kind: 'restart', responseIndex: 0 },
      { kind: 'delta', responseIndex: 0, channel: 'text', offset: 0, delta: 'final ' },
      { kind: 'delta', responseIndex: 0, channel: 'text', offset: 6, delta: 'answer' },
    ]);
  });

  it('never waits for a watcher that stops reading, and gives it what it missed as one delta, not a gap', async () => {
    const executor = new InProcessExecutor({
      tools: [],
      model: scriptedModel([{ parts: [...deltas({ count: 500, delayMs: 0 }), finish] }]),
    });
    const result = executor.runTurn({ turnId: 'slow-reader', input: 'go' });
    const watcher = executor.watch('slow-reader');
    const first = await watcher.next();
    expect(first.value).toMatchObject({ kind: 'entry', seq: 1 });
    // The watcher reads nothing more until the turn is over: the turn does not wait for it.
    expect((await result).text).toBe(answer(500));
    const rest = await collect({ [Symbol.asyncIterator]: () => watcher });
    const events = [first.value as TurnWatchEvent, ...rest];
    expect(events.some((e) => e.kind === 'gap')).toBe(false);
    // 500 deltas streamed while it was not reading; it holds none of them, and gets their text whole.
    expect(textDeltas(events)).toEqual([answer(500)]);
    expect(shownText(events)).toEqual(recordedText(events));
  });

  it('replays a finished turn from the journal: its entries, and each response whole before its entry', async () => {
    const executor = new InProcessExecutor({
      tools: [],
      model: scriptedModel([{ reasoning: 'hmm ', text: 'done' }]),
    });
    const live = executor.runTurn({ turnId: 'replayed', input: 'go' });
    const watchedLive = await collect(executor.watch('replayed'));
    await live;
    const replayed = await collect(executor.watch('replayed'));
    expect(entriesOf(replayed)).toEqual(entriesOf(watchedLive));
    expect(shownText(replayed)).toEqual(recordedText(replayed));
    const respondedAt = replayed.findIndex((e) => e.kind === 'entry' && e.entry.type === 'model.responded');
    expect(replayed.slice(respondedAt - 2, respondedAt)).toEqual([
      { kind: 'delta', responseIndex: 0, channel: 'reasoning', offset: 0, delta: 'hmm ' },
      { kind: 'delta', responseIndex: 0, channel: 'text', offset: 0, delta: 'done' },
    ]);
  });

  it('tells a watcher of a turn it neither runs nor has in its journal how to start one', async () => {
    const executor = new InProcessExecutor({ tools: [], model: scriptedModel([]) });
    await expect(executor.watch('nobody').next()).rejects.toThrow(
      'turn nobody is not running on this executor and is not in its journal: start it with runTurn',
    );
  });

  it('refuses an after that is not a sequence number', async () => {
    const executor = new InProcessExecutor({ tools: [], model: scriptedModel([]) });
    await expect(executor.watch('some-turn', { after: -1 }).next()).rejects.toThrow(
      /after must be a sequence number/,
    );
  });

  it('says a journal without read cannot replay a turn it does not run', async () => {
    const memory = new MemoryJournal();
    const journal: TurnJournal = { open: (args) => memory.open(args) };
    const executor = new InProcessExecutor({ tools: [], model: scriptedModel([]), journal });
    await expect(executor.watch('elsewhere').next()).rejects.toThrow(/its journal has no read method/);
  });

  it('follows a turn taken over by another executor from its first entry, numbered as in the journal, and ends the old watcher with an error', async () => {
    const journal = new MemoryJournal();
    const gateA = gatedTool();
    const gateB = gatedTool();
    const a = new InProcessExecutor({ tools: [gateA.tool], model: gatedScript(), journal, owner: 'host-a' });
    const b = new InProcessExecutor({ tools: [gateB.tool], model: gatedScript(), journal, owner: 'host-b' });
    const c = new InProcessExecutor({ tools: [], model: scriptedModel([]), journal, owner: 'host-c' });
    const runningOnA = a.runTurn({ turnId: 'moved', input: 'go' }).then(
      () => new Error('the fenced-out host finished the turn'),
      (error: unknown) => error,
    );
    const watchingA = collect(a.watch('moved')).then(
      () => new Error('the watcher of the fenced-out host ended as if the turn finished'),
      (error: unknown) => error,
    );
    await gateA.started;

    // Another executor has no feed of it, and an unfinished turn cannot be replayed.
    await expect(c.watch('moved').next()).rejects.toThrow(
      /turn moved has not finished and is not running on this executor .*continue it here with resumeTurn/,
    );

    const before = journal.entries('moved').length;
    const resumed = b.resumeTurn({ turnId: 'moved', takeOver: true });
    const watchingB = collect(b.watch('moved'));
    await gateB.started;
    gateB.open();
    expect(await resumed).toMatchObject({ status: 'completed', text: 'done' });
    const events = await watchingB;
    const entries = entriesOf(events);
    expect(entries.map((e) => e.entry)).toEqual(journal.entries('moved'));
    expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i + 1));
    expect(entries.length).toBeGreaterThan(before);
    expect(shownText(events)).toEqual(recordedText(events));

    // Host A wakes up fenced out: its drive fails, and so does its watcher, saying what to do.
    gateA.open();
    expect(await runningOnA).toMatchObject({ code: 'stale-fence' });
    const error = await watchingA;
    expect(String(error)).toMatch(/turn moved stopped on this executor before it finished .*resumeTurn/);
  });
});

import { scriptedModel, transcriptProblems } from 'durable-turns';
import { type ConformanceHarness, runSpec } from './harness';
import { fileTools, RecordingObserver, Timeline, uniqueTurnId, withoutTurnId } from './support';

const read = (id: string, path: string, delayMs?: number) => ({
  id,
  name: 'read_file',
  args: { path, ...(delayMs ? { delayMs } : {}) },
});
const write = (id: string, path: string, delayMs?: number) => ({
  id,
  name: 'write_file',
  args: { path, ...(delayMs ? { delayMs } : {}) },
});

export function waveCases(harness: ConformanceHarness): void {
  describe(`waves (${harness.name})`, () => {
    test('concurrency-safe calls without shared resources run in one wave, at the same time', async () => {
      const timeline = new Timeline();
      const { read: r } = fileTools(timeline, 150);
      const result = await runSpec(harness, {
        turnId: uniqueTurnId('wave'),
        input: 'read three files',
        tools: [r],
        model: scriptedModel([
          { toolCalls: [read('a', 'a'), read('b', 'b'), read('c', 'c')] },
          { text: 'done' },
        ]),
      });
      expect(result.status).toBe('completed');
      expect(timeline.maxConcurrent).toBe(3);
      expect(timeline.overlapped('a', 'c')).toBe(true);
    });

    test('a write between two reads is a barrier: the later read starts only after the write finished', async () => {
      const timeline = new Timeline();
      const { read: r, write: w } = fileTools(timeline, 80);
      const result = await runSpec(harness, {
        turnId: uniqueTurnId('barrier'),
        input: 'read, write, read',
        tools: [r, w],
        model: scriptedModel([
          { toolCalls: [read('a', 'x'), write('b', 'y'), read('c', 'z')] },
          { text: 'done' },
        ]),
      });
      expect(result.status).toBe('completed');
      expect(timeline.endedBeforeStart('a', 'b')).toBe(true);
      expect(timeline.endedBeforeStart('b', 'c')).toBe(true);
      expect(timeline.startOrder()).toEqual(['a', 'b', 'c']);
    });

    test('safe calls whose resources overlap do not share a wave', async () => {
      const timeline = new Timeline();
      // b ends only once c has started (if they share a wave, however slow the dispatch).
      const { read: r } = fileTools(timeline, 80, { holdUntil: { b: 'c' } });
      await runSpec(harness, {
        turnId: uniqueTurnId('conflict'),
        input: 'read the same file twice',
        tools: [r],
        model: scriptedModel([
          { toolCalls: [read('a', 'same'), read('b', 'same'), read('c', 'other')] },
          { text: 'done' },
        ]),
      });
      expect(timeline.endedBeforeStart('a', 'b')).toBe(true);
      // c does not conflict with b, so it joins b's wave.
      expect(timeline.overlapped('b', 'c')).toBe(true);
    });

    test('concurrency safety may depend on the arguments of each call', async () => {
      const timeline = new Timeline();
      const { read: r } = fileTools(timeline, 80);
      const guarded = { ...r, concurrencySafe: (a: { path: string }) => !a.path.startsWith('/dev/') };
      await runSpec(harness, {
        turnId: uniqueTurnId('per-call-safety'),
        input: 'read',
        tools: [guarded],
        model: scriptedModel([
          { toolCalls: [read('a', 'x'), read('b', '/dev/tty'), read('c', 'y')] },
          { text: 'done' },
        ]),
      });
      expect(timeline.endedBeforeStart('a', 'b')).toBe(true);
      expect(timeline.endedBeforeStart('b', 'c')).toBe(true);
    });

    test('at most maxConcurrency calls of a wave run at once', async () => {
      const timeline = new Timeline();
      const { read: r } = fileTools(timeline, 60);
      const calls = ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => read(id, id));
      const result = await runSpec(harness, {
        turnId: uniqueTurnId('max-concurrency'),
        input: 'read six',
        tools: [r],
        dispatch: { maxConcurrency: 2 },
        model: scriptedModel([{ toolCalls: calls }, { text: 'done' }]),
      });
      expect(result.outputs.map((o) => o.status)).toEqual(Array(6).fill('ok'));
      expect(timeline.maxConcurrent).toBe(2);
    });

    test('sequential mode runs one call at a time, in model order, with pre/post strictly paired', async () => {
      const timeline = new Timeline();
      const observer = new RecordingObserver();
      const { read: r } = fileTools(timeline, 30);
      await runSpec(harness, {
        turnId: uniqueTurnId('sequential'),
        input: 'read three',
        tools: [r],
        dispatch: { mode: 'sequential' },
        observers: [observer],
        model: scriptedModel([
          { toolCalls: [read('a', 'a'), read('b', 'b'), read('c', 'c')] },
          { text: 'done' },
        ]),
      });
      expect(timeline.maxConcurrent).toBe(1);
      expect(observer.order).toEqual(['pre:a#1', 'post:a#1', 'pre:b#1', 'post:b#1', 'pre:c#1', 'post:c#1']);
    });

    test('outputs are recorded in batch order, and events are identical in both modes, even when calls finish in reverse', async () => {
      const script = () =>
        scriptedModel([
          { text: 'reading', toolCalls: [read('a', 'a', 700), read('b', 'b', 400), read('c', 'c', 100)] },
          { toolCalls: [write('d', 'a', 10), read('e', 'e', 10)] },
          { text: 'done' },
        ]);
      const run = async (mode: 'parallel' | 'sequential') => {
        const timeline = new Timeline();
        const { read: r, write: w } = fileTools(timeline);
        const result = await runSpec(harness, {
          turnId: uniqueTurnId(`reverse-${mode}`),
          input: 'go',
          tools: [r, w],
          dispatch: { mode },
          model: script(),
        });
        return { result, timeline };
      };
      const parallel = await run('parallel');
      const sequential = await run('sequential');
      // In parallel the calls really did finish in reverse order…
      expect(
        parallel.timeline.marks
          .filter((m) => m.kind === 'end')
          .map((m) => m.key)
          .slice(0, 3),
      ).toEqual(['c', 'b', 'a']);
      // …yet the record is in batch order, and the same as one-at-a-time.
      expect(parallel.result.outputs.map((o) => o.toolCallId)).toEqual(['a', 'b', 'c', 'd', 'e']);
      expect(withoutTurnId(parallel.result.events)).toEqual(withoutTurnId(sequential.result.events));
      expect(parallel.result.transcript).toEqual(sequential.result.transcript);
      expect(transcriptProblems(parallel.result.transcript)).toEqual([]);
    });
  });
}

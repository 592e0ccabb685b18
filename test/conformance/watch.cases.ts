import {
  defineTool,
  type ModelStreamPart,
  type ScriptedPart,
  scriptedModel,
  type TurnModel,
  type TurnWatchEvent,
} from 'durable-turns';
import { z } from 'zod';
import type { ConformanceHarness, RunningTurn, TurnSpec } from './harness';
import { uniqueTurnId } from './support';
import { collect, entriesOf, recordedText, shownText, tapped } from './watched';

const echo = defineTool({
  name: 'echo',
  description: 'Echoes',
  input: z.object({ text: z.string() }),
  concurrencySafe: true,
  execute: ({ text }) => text,
});

const finish = (reason: string): ScriptedPart => ({
  type: 'finish',
  finishReason: reason,
  usage: { inputTokens: 1, outputTokens: 1 },
});
const text = (delta: string, delayMs = 10): ScriptedPart => ({ type: 'text-delta', delta, delayMs });
const reasoning = (delta: string, delayMs = 10): ScriptedPart => ({
  type: 'reasoning-delta',
  delta,
  delayMs,
});

/**
 * The model, held after the first text delta of response `responseIndex` (of its first attempt)
 * until `hold` resolves: what a watcher sees then was shown while the model streamed, however
 * slowly a loaded machine hands out work. `hold` is read when the stream reaches that point.
 */
function heldAfterFirstDelta(model: TurnModel, responseIndex: number, hold: () => Promise<void>): TurnModel {
  let held = false;
  return {
    name: model.name,
    async *stream(request) {
      for await (const part of model.stream(request)) {
        yield part as ModelStreamPart;
        if (!held && request.responseIndex === responseIndex && part.type === 'text-delta') {
          held = true;
          await hold();
        }
      }
    },
  };
}

/** Two responses: reasoning and text around a tool call, then a streamed answer. */
function twoResponses(): TurnModel {
  return scriptedModel([
    {
      parts: [
        reasoning('Let me '),
        reasoning('look it up. '),
        text('Checking. '),
        { type: 'tool-call', toolCallId: 'e1', toolName: 'echo', input: JSON.stringify({ text: 'hi' }) },
        finish('tool-calls'),
      ],
    },
    { parts: [text('The '), text('answer '), text('is '), text('hi.'), finish('stop')] },
  ]);
}

/** A promise the case resolves once its watcher is open and has seen what it waits for. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const isDelta = (responseIndex: number) => (event: TurnWatchEvent) =>
  event.kind === 'delta' && event.responseIndex === responseIndex;

/** Each response's shown text is its recorded text, and the entries are numbered 1, 2, 3… to `turn.finished`. */
function expectWholeAndInOrder(events: readonly TurnWatchEvent[]): void {
  const entries = entriesOf(events);
  expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i + 1));
  expect(entries.at(-1)?.entry.type).toBe('turn.finished');
  const recorded = recordedText(events);
  expect(recorded.size).toBeGreaterThan(0);
  expect(shownText(events)).toEqual(recorded);
}

/** What `watch` yields, the same on every executor: entries in order and each response's text live. */
export function watchCases(harness: ConformanceHarness): void {
  describe(`${harness.name}: watch`, () => {
    const spec = (label: string, model: TurnModel, extra: Partial<TurnSpec> = {}): TurnSpec => ({
      turnId: uniqueTurnId(`watch-${label}`),
      input: 'go',
      tools: [echo],
      model,
      ...extra,
    });

    it('shows text and reasoning while the model streams, before each response entry, adding up to the recorded text', async () => {
      const watcher = deferred();
      const turn = await harness.start(
        spec(
          'live',
          heldAfterFirstDelta(twoResponses(), 1, () => watcher.promise),
        ),
      );
      const watched = tapped(turn.watch(), isDelta(1));
      void watched.seen.then(watcher.resolve);
      const [events, result] = await Promise.all([watched.events, turn.result]);
      expect(result.status).toBe('completed');
      expectWholeAndInOrder(events);
      expect(shownText(events).get(0)).toEqual({ text: 'Checking. ', reasoning: 'Let me look it up. ' });
      expect(result.text).toBe('The answer is hi.');
      // Response 1 was held after its first delta until this watcher saw one: it was shown live.
      const firstDelta = events.findIndex(isDelta(1));
      const responded = events.findIndex(
        (e) => e.kind === 'entry' && e.entry.type === 'model.responded' && e.entry.responseIndex === 1,
      );
      expect(firstDelta).toBeGreaterThan(-1);
      expect(firstDelta).toBeLessThan(responded);
    });

    it('takes back the text of a request that failed mid-stream with a restart, then shows the retried text', async () => {
      const watcher = deferred();
      let asked = 0;
      const model = scriptedModel([
        () => {
          asked += 1;
          return asked === 1
            ? {
                parts: [
                  text('draft '),
                  text('more'),
                  { type: 'error', message: 'connection reset', retryable: true },
                ],
              }
            : { parts: [text('final '), text('answer'), finish('stop')] };
        },
      ]);
      const turn = await harness.start(
        spec(
          'retry',
          heldAfterFirstDelta(model, 0, () => watcher.promise),
          {
            modelRetry: { maxAttempts: 3, initialDelayMs: 20 },
          },
        ),
      );
      const watched = tapped(turn.watch(), isDelta(0));
      void watched.seen.then(watcher.resolve);
      const [events, result] = await Promise.all([watched.events, turn.result]);
      expect(asked).toBe(2);
      expect(result.text).toBe('final answer');
      expectWholeAndInOrder(events);
      const kinds = events.filter((e) => e.kind !== 'entry').map((e) => e.kind);
      expect(kinds[0]).toBe('delta');
      expect(kinds).toContain('restart');
      expect(kinds.lastIndexOf('delta')).toBeGreaterThan(kinds.indexOf('restart'));
    });

    it('gives two watchers the same entries and the same text', async () => {
      const turn = await harness.start(spec('two', twoResponses()));
      const [first, second, result] = await Promise.all([
        collect(turn.watch()),
        collect(turn.watch()),
        turn.result,
      ]);
      expect(result.status).toBe('completed');
      expectWholeAndInOrder(first);
      expectWholeAndInOrder(second);
      expect(entriesOf(second)).toEqual(entriesOf(first));
      expect(shownText(second)).toEqual(shownText(first));
    });

    it('gives a watcher that opens mid-stream every entry from the first, then the text so far and the rest', async () => {
      let late: Promise<TurnWatchEvent[]> | undefined;
      let running: RunningTurn | undefined;
      const started = deferred();
      const turn = await harness.start(
        spec(
          'late',
          heldAfterFirstDelta(twoResponses(), 1, async () => {
            // Response 1 has streamed its first delta: the late watcher opens now, and the model
            // goes on once it has seen that text.
            await started.promise;
            if (!running) throw new Error('unreachable: started resolves once the turn is known');
            const watched = tapped(running.watch(), isDelta(1));
            late = watched.events;
            await watched.seen;
          }),
        ),
      );
      running = turn;
      started.resolve();
      const [early, result] = await Promise.all([collect(turn.watch()), turn.result]);
      const lateEvents = await (late ?? Promise.reject(new Error('the late watcher never opened')));
      expect(result.status).toBe('completed');
      expectWholeAndInOrder(lateEvents);
      expect(entriesOf(lateEvents)).toEqual(entriesOf(early));
      expect(shownText(lateEvents)).toEqual(shownText(early));
      // What had streamed before it opened came to it as one delta, then the rest.
      expect(lateEvents.find(isDelta(1))).toEqual({
        kind: 'delta',
        responseIndex: 1,
        channel: 'text',
        offset: 0,
        delta: 'The ',
      });
    });

    it('ends after turn.finished when the turn is cancelled mid-stream: the open response just stops', async () => {
      const watcher = deferred();
      const model = scriptedModel([
        { parts: [text('partial '), text('never shown', 30_000), finish('stop')] },
      ]);
      const turn = await harness.start(
        spec(
          'cancelled',
          heldAfterFirstDelta(model, 0, async () => {
            await watcher.promise;
            await turn.cancel();
          }),
        ),
      );
      const watched = tapped(turn.watch(), isDelta(0));
      void watched.seen.then(watcher.resolve);
      const [events, result] = await Promise.all([watched.events, turn.result]);
      expect(result.status).toBe('cancelled');
      const entries = entriesOf(events);
      expect(entries.at(-1)?.entry).toMatchObject({ type: 'turn.finished', status: 'cancelled' });
      expect(entries.some((e) => e.entry.type === 'model.responded')).toBe(false);
      expect(shownText(events).get(0)?.text).toBe('partial ');
    });

    it('with live: false gives the entries only, the same as a live watcher', async () => {
      const turn = await harness.start(spec('entries', twoResponses()));
      const [entries, live] = await Promise.all([
        collect(turn.watch({ live: false })),
        collect(turn.watch()),
        turn.result,
      ]);
      expect(entries.every((e) => e.kind === 'entry')).toBe(true);
      expect(entries).toEqual(live.filter((e) => e.kind === 'entry'));
    });

    it('with after: N starts at entry N + 1', async () => {
      const turn = await harness.start(spec('after', twoResponses()));
      const [all, later] = await Promise.all([
        collect(turn.watch({ live: false })),
        collect(turn.watch({ after: 3, live: false })),
        turn.result,
      ]);
      expect(later).toEqual(all.slice(3));
    });
  });
}

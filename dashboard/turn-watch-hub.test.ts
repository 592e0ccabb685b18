import type { TurnWatchEvent } from '../contract/live-text';
import type { TurnStateView } from '../core';
import type { SseMessage } from './sse-message';
import { TurnWatchHub } from './turn-watch-hub';
import type { TurnWatchSource } from './turn-watch-source';

/** A turn whose watch events the test hands over one by one, as its watch would yield them. */
function scriptedTurn() {
  const queue: (TurnWatchEvent | 'end')[] = [];
  let wake = () => {};
  const counts = { watches: 0, states: 0 };
  const source: TurnWatchSource = {
    watch: async function* (_turnId, { signal }) {
      counts.watches += 1;
      for (;;) {
        while (queue.length === 0) {
          if (signal.aborted) return;
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        }
        const next = queue.shift();
        if (next === 'end' || next === undefined) return;
        yield next;
      }
    },
    state: async () => {
      counts.states += 1;
      return { phase: 'model' } as TurnStateView;
    },
  };
  const push = (...events: (TurnWatchEvent | 'end')[]) => {
    queue.push(...events);
    wake();
  };
  return { source, push, counts };
}

function viewer() {
  const seen: SseMessage[] = [];
  let closed = false;
  return {
    seen,
    get closed() {
      return closed;
    },
    subscriber: { send: (m: SseMessage) => seen.push(m), close: () => (closed = true) },
  };
}

const entry = (seq: number, type: string, extra: Record<string, unknown> = {}): TurnWatchEvent =>
  ({ kind: 'entry', seq, entry: { type, ...extra } }) as unknown as TurnWatchEvent;
const delta = (offset: number, text: string): TurnWatchEvent => ({
  kind: 'delta',
  responseIndex: 0,
  channel: 'text',
  offset,
  delta: text,
});
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

test('viewers of one turn share one watch; a late viewer is replayed the entries and the text streaming now', async () => {
  const turn = scriptedTurn();
  const hub = new TurnWatchHub({ source: turn.source, stateIntervalMs: 0, lingerMs: 1_000 });
  const first = viewer();
  hub.subscribe({ turnId: 't', after: 0, subscriber: first.subscriber, running: true });
  turn.push(
    entry(1, 'turn.started'),
    entry(2, 'model.requested', { responseIndex: 0 }),
    delta(0, 'Hel'),
    delta(3, 'lo'),
  );
  await settle();
  const late = viewer();
  hub.subscribe({ turnId: 't', after: 0, subscriber: late.subscriber, running: true });
  expect(turn.counts.watches).toBe(1);
  const kinds = (seen: SseMessage[]) =>
    seen
      .filter((m) => m.event !== 'state')
      .map((m) =>
        m.event === 'entry' ? `#${m.id}` : m.event === 'live' ? (m.data as { kind: string }).kind : m.event,
      );
  expect(kinds(late.seen)).toEqual(['#1', '#2', 'restart', 'delta', 'delta']);

  turn.push(entry(3, 'model.responded', { responseIndex: 0 }), entry(4, 'turn.finished'), 'end');
  await settle();
  for (const v of [first, late]) {
    expect(v.seen.at(-1)).toEqual({ event: 'end', data: { turnId: 't' } });
    expect(v.closed).toBe(true);
  }
  // Once recorded, the response is replayed as its entry, its live text no longer.
  const after = viewer();
  hub.subscribe({ turnId: 't', after: 2, subscriber: after.subscriber, running: true });
  expect(kinds(after.seen)).toEqual(['#3', '#4', 'end']);
  expect(turn.counts.watches).toBe(1);
  hub.close();
});

test('the state is read once per batch of entries, not once per viewer', async () => {
  const turn = scriptedTurn();
  const hub = new TurnWatchHub({ source: turn.source, stateIntervalMs: 0, lingerMs: 1_000 });
  const viewers = Array.from({ length: 5 }, () => viewer());
  for (const v of viewers) hub.subscribe({ turnId: 't', after: 0, subscriber: v.subscriber, running: true });
  turn.push(entry(1, 'turn.started'), entry(2, 'turn.opened'));
  await settle();
  expect(turn.counts.states).toBeLessThanOrEqual(3);
  for (const v of viewers) expect(v.seen.filter((m) => m.event === 'state').length).toBeGreaterThanOrEqual(1);
  turn.push('end');
  await settle();
  hub.close();
});

test('the watch stops once its last viewer has been gone for the linger time, and a new viewer starts another', async () => {
  const turn = scriptedTurn();
  const hub = new TurnWatchHub({ source: turn.source, stateIntervalMs: 0, lingerMs: 10 });
  const unsubscribe = hub.subscribe({
    turnId: 't',
    after: 0,
    subscriber: viewer().subscriber,
    running: false,
  });
  unsubscribe();
  await settle();
  turn.push(entry(1, 'turn.started'));
  await settle();
  hub.subscribe({ turnId: 't', after: 0, subscriber: viewer().subscriber, running: false });
  expect(turn.counts.watches).toBe(2);
  expect(turn.counts.states).toBe(0);
  turn.push('end');
  await settle();
  hub.close();
});

import type { FleetHealthView } from '../client/fleet-health-view';
import { HealthFeed } from './health-feed';
import type { SseMessage } from './sse-message';

const view: FleetHealthView = { taskQueue: 'q', workflowId: 'w', asOf: null, workers: [], tools: [] };

/** A feed over a fleet read that counts its calls and resolves at once. */
function feedWith({
  backgroundIntervalMs,
  intervalMs = 10,
}: {
  backgroundIntervalMs: number;
  intervalMs?: number;
}) {
  const reads = { count: 0 };
  const feed = new HealthFeed({
    read: async () => {
      reads.count += 1;
      return view;
    },
    intervalMs,
    backgroundIntervalMs,
    retentionMs: 60_000,
    maxPoints: 100,
  });
  return { feed, reads };
}

const until = async (done: () => boolean) => {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('HealthFeed', () => {
  test('with no viewer it reads the fleet in the background into its history, and stops when closed', async () => {
    const { feed, reads } = feedWith({ backgroundIntervalMs: 10 });
    feed.start();
    await until(() => feed.history.list().length >= 3);
    await feed.close();
    const after = reads.count;
    // Many background intervals later, not one more read.
    await sleep(10 * 10);
    expect(reads.count).toBe(after);
  });

  test('with the background poll off, nothing is read until a page opens, nor after the last one leaves', async () => {
    const { feed, reads } = feedWith({ backgroundIntervalMs: 0 });
    feed.start();
    await sleep(10 * 10);
    expect(reads.count).toBe(0);
    const seen: SseMessage[] = [];
    const unsubscribe = feed.subscribe({ subscriber: { send: (m) => seen.push(m), close: () => {} } });
    await until(() => seen.filter((m) => m.event === 'health').length >= 2);
    unsubscribe();
    await sleep(10); // a read already under way may finish
    const after = reads.count;
    await sleep(10 * 10);
    expect(reads.count).toBe(after);
    await feed.close();
  });

  test('a page that opens later gets the current view, then the history, which already holds it', async () => {
    const { feed } = feedWith({ backgroundIntervalMs: 10 });
    feed.start();
    await until(() => feed.history.list().length >= 2);
    const seen: SseMessage[] = [];
    feed.subscribe({ subscriber: { send: (m) => seen.push(m), close: () => {} } });
    expect(seen.map((m) => m.event).slice(0, 2)).toEqual(['health', 'history']);
    const history = seen[1]?.data as { points: unknown[] };
    expect(history.points.length).toBeGreaterThanOrEqual(2);
    await feed.close();
  });
});

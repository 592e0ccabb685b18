import type { FleetHealthView } from '../client/fleet-health-view';
import type { HealthHistoryBody } from '../contract/fleet-health-history';
import { HealthFeed } from './health-feed';
import type { SseMessage } from './sse-message';

const view: FleetHealthView = { taskQueue: 'q', workflowId: 'w', asOf: null, workers: [], tools: [] };
const past: HealthHistoryBody = {
  retentionMs: 60_000,
  points: [{ at: 1, tools: { search: { recentSuccessRate: 1, attempts: 1, workers: { w1: 1 } } } }],
};

/** A feed over a fleet read and a history read that count their calls. */
function feedWith({ intervalMs = 10 }: { intervalMs?: number } = {}) {
  const reads = { views: 0, histories: 0 };
  let releaseHistory = () => {};
  const historyHeld = new Promise<void>((resolve) => {
    releaseHistory = resolve;
  });
  const feed = new HealthFeed({
    read: async () => {
      reads.views += 1;
      return view;
    },
    readHistory: async () => {
      reads.histories += 1;
      await historyHeld;
      return past;
    },
    intervalMs,
  });
  return { feed, reads, releaseHistory };
}

const until = async (done: () => boolean) => {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const viewer = (seen: SseMessage[]) => ({
  subscriber: { send: (m: SseMessage) => seen.push(m), close: () => {} },
});

describe('HealthFeed', () => {
  test('nothing is read until a page opens, nor after the last one leaves', async () => {
    const { feed, reads, releaseHistory } = feedWith();
    releaseHistory();
    await sleep(10 * 10);
    expect(reads).toEqual({ views: 0, histories: 0 });
    const seen: SseMessage[] = [];
    const unsubscribe = feed.subscribe(viewer(seen));
    await until(() => seen.filter((m) => m.event === 'health').length >= 2);
    unsubscribe();
    await sleep(10); // a read already under way may finish
    const after = reads.views;
    await sleep(10 * 10);
    expect(reads.views).toBe(after);
    await feed.close();
  });

  test('pages opening together share one fleet read per interval and one read of the history', async () => {
    const { feed, reads, releaseHistory } = feedWith({ intervalMs: 60_000 });
    const pages = [[], [], []] as SseMessage[][];
    for (const seen of pages) feed.subscribe(viewer(seen));
    releaseHistory();
    await until(() => pages.every((seen) => seen.some((m) => m.event === 'history')));
    expect(reads).toEqual({ views: 1, histories: 1 });
    for (const seen of pages) expect(seen.find((m) => m.event === 'history')?.data).toEqual(past);
    await feed.close();
  });

  test('a page that opens later gets the current view at once, then the past from the fleet workflow', async () => {
    const { feed, releaseHistory } = feedWith();
    const first: SseMessage[] = [];
    feed.subscribe(viewer(first));
    await until(() => first.some((m) => m.event === 'health'));
    const later: SseMessage[] = [];
    feed.subscribe(viewer(later));
    expect(later.map((m) => m.event)).toEqual(['health']);
    releaseHistory();
    await until(() => later.some((m) => m.event === 'history'));
    expect(later.map((m) => m.event).slice(0, 2)).toEqual(['health', 'history']);
    await feed.close();
  });

  test('a history that cannot be read is an error event for the page, and the live view goes on', async () => {
    const feed = new HealthFeed({
      read: async () => view,
      readHistory: async () => {
        throw new Error('query timed out');
      },
      intervalMs: 10,
    });
    const seen: SseMessage[] = [];
    feed.subscribe(viewer(seen));
    await until(() => seen.filter((m) => m.event === 'health').length >= 2);
    expect(seen.find((m) => m.event === 'error')?.data).toEqual({
      error: 'reading the health history failed: query timed out',
    });
    await feed.close();
  });
});

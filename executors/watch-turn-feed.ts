import { describeThrown, LiveTextAssembler, type TurnWatchEvent } from '../core';
import type { TurnFeed } from './turn-feed';

/**
 * One watcher of a turn's feed: the entries after `after`, in order, then each new one as it is
 * recorded; with `live`, the text of each response as it streams, through the same assembler as
 * Temporal's watchers (so the same guarantees: per response and channel the deltas add up to the
 * recorded text, before its entry; a retried request that had shown text gives `restart`). It
 * reads the feed when its consumer asks for more: whatever streamed in between comes as one delta,
 * never as a gap, since the feed holds the text of the response streaming now. Ends after
 * `turn.finished`; throws if the drive stopped before the turn finished.
 */
export async function* watchTurnFeed({
  feed,
  after,
  live,
  signal,
}: {
  feed: TurnFeed;
  after: number;
  live: boolean;
  signal?: AbortSignal;
}): AsyncGenerator<TurnWatchEvent> {
  const assembler = new LiveTextAssembler();
  // Entry `seq` N is feed.entries[N - 1]: `next` is the index of the first one not yet yielded.
  let next = after;
  const aborted = signal
    ? new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
    : undefined;
  for (;;) {
    if (signal?.aborted) return;
    // Asked before looking, so a change while this watcher yields is not missed.
    const changed = feed.changed();
    while (next < feed.entries.length) {
      const item = feed.entries[next] as (typeof feed.entries)[number];
      next += 1;
      const { entry } = item;
      if (live && entry.type === 'model.responded')
        yield* assembler.complete({ responseIndex: entry.responseIndex, message: entry.message });
      yield { kind: 'entry', ...item };
      if (entry.type === 'turn.finished') return;
    }
    if (live)
      for (const response of feed.streaming()) {
        // A response is shown once this watcher is past its request, so its deltas follow that entry.
        if (response.requestedSeq > next) continue;
        yield* assembler.snapshot({
          stream: response.stream,
          details: {
            responseIndex: response.responseIndex,
            text: { from: 0, tail: response.text },
            reasoning: { from: 0, tail: response.reasoning },
          },
        });
      }
    const stopped = feed.stoppedWith;
    if (stopped && next >= feed.entries.length) {
      const why =
        stopped.error === undefined ? 'its drive ended' : describeThrown(stopped.error, 'the drive').message;
      throw new Error(
        `turn ${feed.turnId} stopped on this executor before it finished (${why}); continue it with resumeTurn and watch it again with { after: ${next} }`,
      );
    }
    await (aborted ? Promise.race([changed, aborted]) : changed);
  }
}

import { SizeBoundedMap, type TurnResult } from '../core';

/**
 * The results of ended conversation turns this dashboard has read: an ended turn never changes, so
 * a page read every second reads each once. Keyed by the conversation's incarnation too (a deleted
 * conversation's id may begin a new one). Bounded by entries and by size (characters of their JSON),
 * the oldest read going first.
 */
export class EndedTurnResults {
  private readonly held: SizeBoundedMap<TurnResult>;

  constructor(maxEntries = 256, maxChars = 64 * 1024 * 1024) {
    this.held = new SizeBoundedMap(maxEntries, maxChars);
  }

  async read({
    incarnation = '',
    turnId,
    fetch,
  }: {
    incarnation?: string | undefined;
    turnId: string;
    fetch: () => Promise<TurnResult>;
  }): Promise<TurnResult> {
    const key = `${incarnation}\n${turnId}`;
    const found = this.held.get(key);
    if (found) return found;
    const result = await fetch();
    this.held.set(key, result);
    return result;
  }
}

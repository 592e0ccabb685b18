import type { TurnResult } from '../core';

/**
 * The results of ended conversation turns this dashboard has read: an ended turn never changes, so
 * a page read every second reads each once. Keyed by the conversation's incarnation too (a deleted
 * conversation's id may begin a new one). Bounded by entries, the oldest read going first.
 */
export class EndedTurnResults {
  private readonly held = new Map<string, TurnResult>();

  constructor(private readonly maxEntries = 256) {}

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
    for (const oldest of this.held.keys()) {
      if (this.held.size <= this.maxEntries) break;
      this.held.delete(oldest);
    }
    return result;
  }
}

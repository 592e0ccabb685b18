import type { TurnResult } from '../core';

/**
 * The results of ended conversation turns this dashboard has read: an ended turn never changes, so
 * a page read every second reads each once. Keyed by the conversation's incarnation too (a deleted
 * conversation's id may begin a new one). Bounded by entries and by size (characters of their JSON,
 * as the worker's transcript cache is), the oldest read going first.
 */
export class EndedTurnResults {
  private readonly held = new Map<string, { result: TurnResult; chars: number }>();
  private chars = 0;

  constructor(
    private readonly maxEntries = 256,
    private readonly maxChars = 64 * 1024 * 1024,
  ) {}

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
    if (found) return found.result;
    const result = await fetch();
    if (this.held.has(key)) return result;
    const chars = JSON.stringify(result).length;
    this.held.set(key, { result, chars });
    this.chars += chars;
    // The one just read stays even when it alone is over the bound.
    for (const [oldest, entry] of this.held) {
      if (this.held.size <= 1 || (this.held.size <= this.maxEntries && this.chars <= this.maxChars)) break;
      this.held.delete(oldest);
      this.chars -= entry.chars;
    }
    return result;
  }
}

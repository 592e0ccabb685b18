import { stableHash } from '../../core';

/**
 * Digests of a list's prefixes, each chained from the one before: the digest of the first n items
 * covers all of them, so an asker holding n items can show in one short string that every one of
 * them still stands. Kept per workflow run and extended as the list grows, so a query late in a
 * long turn hashes only what is new; an item replaced anywhere (compared by identity, then by
 * content) recomputes the chain from there.
 */
export class PrefixDigests<T> {
  private readonly items: T[] = [];
  private readonly chain: string[] = [];

  constructor(private readonly digestOf: (item: T) => string) {}

  /** The digest of `list`'s first `n` items ('' for none). */
  at(list: readonly T[], n: number): string {
    if (n <= 0) return '';
    let same = 0;
    const limit = Math.min(n, this.items.length);
    while (same < limit && this.items[same] === list[same]) same++;
    if (same < limit) {
      this.items.length = same;
      this.chain.length = same;
    }
    for (let i = this.items.length; i < n; i++) {
      const item = list[i] as T;
      this.items.push(item);
      this.chain.push(stableHash(`${this.chain[i - 1] ?? ''}|${this.digestOf(item)}`));
    }
    return this.chain[n - 1] as string;
  }
}

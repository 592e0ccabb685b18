/**
 * Values kept in the order they were set, bounded by count and by size (what `sizeOf` says, the
 * characters of their JSON by default): past either bound the oldest go first, and the newest
 * always stays, even alone over the bound. For what never changes once read (ended turns).
 */
export class SizeBoundedMap<V> {
  private readonly held = new Map<string, { value: V; size: number }>();
  private total = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxSize: number,
    private readonly sizeOf: (value: V) => number = (value) => JSON.stringify(value).length,
  ) {}

  get(key: string): V | undefined {
    return this.held.get(key)?.value;
  }

  set(key: string, value: V): void {
    const before = this.held.get(key);
    if (before) {
      this.held.delete(key);
      this.total -= before.size;
    }
    const size = this.sizeOf(value);
    this.held.set(key, { value, size });
    this.total += size;
    for (const [oldest, entry] of this.held) {
      if (this.held.size <= 1 || (this.held.size <= this.maxEntries && this.total <= this.maxSize)) break;
      this.held.delete(oldest);
      this.total -= entry.size;
    }
  }

  /** How many values it holds, and their total size. */
  get size(): { entries: number; size: number } {
    return { entries: this.held.size, size: this.total };
  }
}

/**
 * mulberry32: a tiny seeded PRNG (32-bit state, full period). Good enough to shuffle test inputs,
 * and small enough that a failure's seed replays the same cases on any machine.
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The draws the fuzz generator makes, all from one seeded stream. */
export class FuzzRandom {
  private readonly next: () => number;

  constructor(seed: number) {
    this.next = mulberry32(seed);
  }

  /** A float in [0, 1). */
  float(): number {
    return this.next();
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  /** One of the keys, chosen with probability proportional to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as [K, number][];
    const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
    let roll = this.next() * total;
    for (const [key, weight] of entries) {
      roll -= weight;
      if (roll < 0) return key;
    }
    const last = entries[entries.length - 1];
    if (!last) throw new Error('weighted pick from no weights');
    return last[0];
  }

  /** `text` cut into 1..`maxPieces` pieces at random points (pieces may be empty). */
  split(text: string, maxPieces: number): string[] {
    const cuts = new Set<number>();
    const count = this.int(0, Math.max(0, maxPieces - 1));
    for (let i = 0; i < count; i++) cuts.add(this.int(0, text.length));
    const points = [...cuts].sort((a, b) => a - b);
    const pieces: string[] = [];
    let from = 0;
    for (const point of points) {
      pieces.push(text.slice(from, point));
      from = point;
    }
    pieces.push(text.slice(from));
    return pieces;
  }
}

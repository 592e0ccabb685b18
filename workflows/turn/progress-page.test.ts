import type { ProgressEntry } from '../../core';
import { progressPage } from './progress-page';

const output = (seq: number, chars: number): ProgressEntry => ({
  seq,
  entry: {
    type: 'tool.completed',
    toolCallId: `c${seq}`,
    output: { status: 'ok', content: 'x'.repeat(chars), attempts: 1 },
  },
});

describe("a watcher's page of a turn's progress", () => {
  test('holds the entries after the one asked about, at most 500', () => {
    const progress = Array.from({ length: 800 }, (_, i) => output(i + 1, 10));
    expect(progressPage(progress, 0).map((p) => p.seq)).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
    expect(progressPage(progress, 700).map((p) => p.seq)).toEqual(
      Array.from({ length: 100 }, (_, i) => i + 701),
    );
    expect(progressPage(progress, 800)).toEqual([]);
  });

  test('stops before a query answer would pass the server limit, and always moves on by one', () => {
    // Outputs at the default cap: twelve of them are 3 MB.
    const progress = Array.from({ length: 12 }, (_, i) => output(i + 1, 256 * 1024));
    const first = progressPage(progress, 0);
    expect(first.length).toBeGreaterThan(0);
    expect(JSON.stringify(first).length).toBeLessThanOrEqual(1024 * 1024);
    // One entry larger than a page still comes, alone.
    const huge = [output(1, 900 * 1024), output(2, 10)];
    expect(progressPage(huge, 0).map((p) => p.seq)).toEqual([1]);
    expect(progressPage(huge, 1).map((p) => p.seq)).toEqual([2]);
  });
});

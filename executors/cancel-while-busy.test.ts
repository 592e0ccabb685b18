import { z } from 'zod';
import { defineTool, type JournalEntry } from '../core';
import { scriptedModel } from '../models';
import { InProcessExecutor } from './in-process-executor';
import { MemoryJournal } from './journal/memory-journal';
import type { OpenJournalArgs, TurnJournal } from './journal/turn-journal';

/** A journal whose appends of the turn's first tool start take `slowMs`: the host is busy then. */
class SlowStartJournal implements TurnJournal {
  private readonly inner = new MemoryJournal();
  constructor(
    private readonly slowMs: number,
    private readonly onSlowAppend: () => void,
  ) {}

  async open(args: OpenJournalArgs) {
    const session = await this.inner.open(args);
    let slowed = false;
    return {
      turnId: session.turnId,
      owner: session.owner,
      fencingToken: session.fencingToken,
      load: () => session.load(),
      renew: () => session.renew(),
      release: () => session.release(),
      append: async (entries: readonly JournalEntry[], expectedVersion: number) => {
        if (!slowed && entries.some((e) => e.type === 'tool.attempt_finished')) {
          slowed = true;
          this.onSlowAppend();
          await new Promise((resolve) => setTimeout(resolve, this.slowMs));
        }
        return session.append(entries, expectedVersion);
      },
    };
  }
}

/**
 * A cancel that arrives while the host is busy persisting (a slow journal) must not turn results
 * that already came back into "interrupted": the tools finished, and the model is told so.
 */
test('a cancel that arrives during a slow journal append keeps the results that already came back', async () => {
  const controller = new AbortController();
  let second: (() => void) | undefined;
  const quick = defineTool({
    name: 'quick',
    description: 'Returns at once',
    input: z.object({ n: z.number() }),
    concurrencySafe: true,
    execute: async ({ n }) => {
      // The second call finishes while the first one's result is being persisted.
      if (n === 2) await new Promise<void>((resolve) => (second = resolve));
      return `done ${n}`;
    },
  });
  const journal = new SlowStartJournal(200, () => {
    second?.();
    // The cancel lands while the append is still under way.
    setTimeout(() => controller.abort(), 20);
  });
  const executor = new InProcessExecutor({
    tools: [quick],
    journal,
    model: scriptedModel([
      {
        toolCalls: [
          { id: 'a', name: 'quick', args: { n: 1 } },
          { id: 'b', name: 'quick', args: { n: 2 } },
        ],
      },
      { text: 'never asked' },
    ]),
  });
  const result = await executor.runTurn({ turnId: 'busy', input: 'go' }, { signal: controller.signal });
  expect(result.status).toBe('cancelled');
  expect(result.outputs.map((o) => [o.toolCallId, o.status, o.content])).toEqual([
    ['a', 'ok', 'done 1'],
    ['b', 'ok', 'done 2'],
  ]);
});

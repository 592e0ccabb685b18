import { defineTool } from 'durable-turns';
import { z } from 'zod';

export const NOOP_RESULT = 'ok';

/** Counts executions, so a benchmark can prove the tools really ran. */
export class ExecutionCounter {
  count = 0;
}

/** A concurrency-safe tool that does nothing but count and return a constant. */
export function noopTool(counter: ExecutionCounter) {
  return defineTool({
    name: 'noop',
    description: 'Does nothing and answers "ok".',
    input: z.object({ i: z.number() }),
    concurrencySafe: true,
    execute: () => {
      counter.count += 1;
      return NOOP_RESULT;
    },
  });
}

/** `count` calls with distinct arguments (so loop detection has nothing to flag). */
export function noopCalls(count: number, prefix = 'c') {
  return Array.from({ length: count }, (_, i) => ({ id: `${prefix}${i}`, name: 'noop', args: { i } }));
}

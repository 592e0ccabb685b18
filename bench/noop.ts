/**
 * The no-op tool the benches call, and turns of it as they script and check them: a tool that does
 * nothing costs only what the host spends on the call.
 */
import { defineTool, type ScriptedStep, type TurnResult } from 'durable-turns';
import { z } from 'zod';
import { check } from './measure';

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
export function noopCalls(count: number, prefix = 'c', from = 0) {
  return Array.from({ length: count }, (_, i) => ({
    id: `${prefix}${from + i}`,
    name: 'noop',
    args: { i: from + i },
  }));
}

/** `batches[r]` calls in response r (ids and arguments distinct across the turn), then a text answer. */
export function noopSteps(batches: readonly number[]): ScriptedStep[] {
  let from = 0;
  const steps = batches.map((size, r) => {
    const toolCalls = noopCalls(size, `c${r}_`, from);
    from += size;
    return { toolCalls };
  });
  return [...steps, { text: 'done' }];
}

/** Checks finished turns: completed, every call ran once and answered ok, every response asked for. */
export function verifyTurns(
  results: readonly (TurnResult | undefined)[],
  labels: readonly string[],
  { calls, responses }: { calls: number; responses: number },
): void {
  const failures = results.flatMap((result, i) => {
    const notOk = result?.outputs.find((o) => o.status !== 'ok');
    const problem =
      result === undefined
        ? 'no result'
        : result.status !== 'completed'
          ? `turn ended ${result.status} (${result.reason ?? ''})`
          : result.text !== 'done'
            ? `final text ${JSON.stringify(result.text)}`
            : result.toolCalls !== calls || result.outputs.length !== calls
              ? `${result.toolCalls} tool calls, ${result.outputs.length} outputs, expected ${calls}`
              : notOk
                ? `${notOk.toolCallId}: ${notOk.status} ${notOk.errorType ?? ''}`
                : result.modelResponses !== responses
                  ? `${result.modelResponses} model responses, expected ${responses}`
                  : undefined;
    return problem ? [`${labels[i] ?? `turn ${i}`}: ${problem}`] : [];
  });
  check(failures.length === 0, `${failures.length} of ${results.length} turns failed; first: ${failures[0]}`);
}

/**
 * A turn of no-op calls, as benchmarks script and check it: the model's steps, and what a finished
 * turn must show before any of its timings count. Shared by bench/temporal.ts and bench/scale.ts.
 */
import type { ScriptedStep, TurnResult } from 'durable-turns';
import { check } from './measure';

/** `batches[r]` calls in response r (ids and arguments distinct across the turn), then a text answer. */
export function noopSteps(batches: readonly number[]): ScriptedStep[] {
  let i = 0;
  return [
    ...batches.map((size, r) => ({
      toolCalls: Array.from({ length: size }, () => {
        const call = { id: `c${r}_${i}`, name: 'noop', args: { i } };
        i += 1;
        return call;
      }),
    })),
    { text: 'done' },
  ];
}

/** Checks a finished turn: completed, every call ran once and answered ok, every response asked for. */
export function verifyTurn(
  result: TurnResult | undefined,
  { calls, responses, label }: { calls: number; responses: number; label: string },
): asserts result is TurnResult {
  check(result !== undefined, `${label}: no result`);
  check(result.status === 'completed', `${label}: turn ended ${result.status} (${result.reason ?? ''})`);
  check(result.text === 'done', `${label}: final text ${JSON.stringify(result.text)}`);
  check(result.toolCalls === calls, `${label}: ${result.toolCalls} tool calls recorded, expected ${calls}`);
  check(result.outputs.length === calls, `${label}: ${result.outputs.length} outputs for ${calls} calls`);
  const notOk = result.outputs.find((o) => o.status !== 'ok');
  check(
    notOk === undefined,
    `${label}: every output is ok (${notOk?.toolCallId}: ${notOk?.status} ${notOk?.errorType ?? ''} ${JSON.stringify(notOk?.content)})`,
  );
  check(
    result.modelResponses === responses,
    `${label}: ${result.modelResponses} model responses, expected ${responses}`,
  );
}

/** `verifyTurn` over many turns; a failure says how many turns failed, with the first one's reason. */
export function verifyTurns(
  results: readonly (TurnResult | undefined)[],
  labels: readonly string[],
  expected: { calls: number; responses: number },
): void {
  const failures: string[] = [];
  for (const [i, result] of results.entries()) {
    try {
      verifyTurn(result, { ...expected, label: labels[i] ?? `turn ${i}` });
    } catch (error) {
      failures.push(error instanceof Error ? error.message : String(error));
    }
  }
  check(failures.length === 0, `${failures.length} of ${results.length} turns failed; first: ${failures[0]}`);
}

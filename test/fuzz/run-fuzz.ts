import type { RetryPolicy, TurnResult } from 'durable-turns';
import { describeFuzzFailure, fuzzTurnProblems } from './assert-fuzz-turn';
import type { FuzzCase } from './fuzz-case';
import { fuzzCases } from './fuzz-cases';
import type { FuzzServer } from './fuzz-server';
import { fuzzTools } from './fuzz-tools';
import { fuzzTurnTimeoutMs } from './fuzz-turn-timeout';

/**
 * A problem that is known and owned elsewhere: a case whose every problem one of these covers is
 * counted, not failed, so the case stays in the generator and checks itself again once fixed.
 */
export interface KnownGap {
  why: string;
  covers: (problem: string, fuzzCase: FuzzCase) => boolean;
}

export interface FuzzRun {
  /** One message per failed case, each naming the seed and how to replay it. */
  failures: string[];
  /** How many of each reply the server served, and how the turns ended. */
  outcomes: Map<string, number>;
  elapsedMs: number;
}

/**
 * Drives `count` fuzz turns through `runTurn` — any executor: it only has to run the case's turn
 * with the fuzz tools and a model pointed at `server`, using `modelRetry` — `concurrency` at a
 * time (default one after another), and checks each with the same assertions, bounded by a
 * timeout derived from the retry policy. Failures are listed in case order.
 */
export async function runFuzz({
  seed,
  count,
  server,
  modelRetry,
  runTurn,
  knownGaps = [],
  concurrency = 1,
  replay,
}: {
  seed: number;
  count: number;
  server: FuzzServer;
  modelRetry: RetryPolicy;
  runTurn: (fuzzCase: FuzzCase, signal: AbortSignal) => Promise<TurnResult>;
  knownGaps?: readonly KnownGap[];
  /** How many turns run at once (the server routes each request to its turn). */
  concurrency?: number;
  /** The command that runs this fuzz again, for the failure messages (default: the in-process one). */
  replay?: string;
}): Promise<FuzzRun> {
  const failures: { index: number; message: string }[] = [];
  const outcomes = new Map<string, number>();
  const tally = (key: string) => outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
  const started = Date.now();
  const runCase = async (fuzzCase: FuzzCase): Promise<void> => {
    server.register(fuzzCase);
    const outcome = await runBounded(
      (signal) => runTurn(fuzzCase, signal),
      fuzzTurnTimeoutMs(fuzzCase, modelRetry),
    );
    const served = server.served(fuzzCase.turnId);
    server.forget(fuzzCase.turnId);

    for (const request of served) tally(`reply ${request.scripted ? request.reply.label : 'closing answer'}`);
    if (
      fuzzCase.replies.some((r) => r.kind === 'stream' && r.calls.some((c) => c.arguments.length > 100_000))
    )
      tally('case with huge arguments');
    let problems: string[];
    if (outcome.kind === 'result') {
      const { result } = outcome;
      const last = served[served.length - 1]?.reply.expect;
      tally(
        `turn ${result.status}${result.status !== 'failed' ? '' : last === 'fatal' ? ' (non-retryable answer)' : ' (retries exhausted)'}`,
      );
      problems = fuzzTurnProblems({ result, served, tools: fuzzTools, maxAttempts: modelRetry.maxAttempts });
    } else {
      tally(`turn ${outcome.kind}`);
      problems = [
        outcome.kind === 'threw'
          ? `runTurn threw: ${outcome.message}`
          : `stuck: no result after ${outcome.afterMs} ms`,
      ];
    }

    if (problems.length === 0) return;
    const open = problems.filter((p) => !knownGaps.some((gap) => gap.covers(p, fuzzCase)));
    if (open.length === 0) tally('case failing only on known gaps');
    else failures.push({ index: fuzzCase.index, message: describeFuzzFailure(fuzzCase, open, replay) });
  };
  // Each lane takes the next case when its turn ends; the generator is shared, so no case runs twice.
  const cases = fuzzCases(seed, count);
  const lane = async () => {
    for (let next = cases.next(); !next.done; next = cases.next()) await runCase(next.value);
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, lane));
  failures.sort((a, b) => a.index - b.index);
  return { failures: failures.map((f) => f.message), outcomes, elapsedMs: Date.now() - started };
}

type Bounded =
  | { kind: 'result'; result: TurnResult }
  | { kind: 'threw'; message: string }
  | { kind: 'stuck'; afterMs: number };

/** Runs a turn, telling a throw and a turn that never ends apart from a result; a stuck turn is cancelled. */
async function runBounded(
  run: (signal: AbortSignal) => Promise<TurnResult>,
  timeoutMs: number,
): Promise<Bounded> {
  const controller = new AbortController();
  // The bound is what the retry policy allows on a quiet machine; on a busy one every workflow task
  // and request takes longer (turns ended 0.6–1.9 s past a 10 s bound beside two CPU burners). A
  // turn that ends within twice its bound is slow, not stuck: a hang still shows, 2× later.
  const limitMs = 2 * timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<Bounded>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'stuck', afterMs: limitMs }), limitMs);
  });
  const ran = run(controller.signal).then(
    (result): Bounded => ({ kind: 'result', result }),
    (error: unknown): Bounded => ({
      kind: 'threw',
      message: error instanceof Error ? error.message : String(error),
    }),
  );
  const outcome = await Promise.race([ran, stuck]);
  clearTimeout(timer);
  if (outcome.kind === 'stuck') controller.abort('the fuzz turn was stuck');
  return outcome;
}

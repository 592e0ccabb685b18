import { InProcessExecutor, type ScriptedStep, scriptedModel } from 'durable-turns';
import { check, measureInterleaved, round, type Sample, sampleMs, type Trial } from './measure';
import { ExecutionCounter, NOOP_RESULT, noopCalls, noopTool } from './noop-tool';

export const DISPATCH_CALLS = 1_000;
export const TARGET_US_PER_CALL = 20;

type Mode = 'parallel' | 'sequential';

/** Defined once, as an application would; each trial resets the count. */
const counter = new ExecutionCounter();
const noop = noopTool(counter);

/** A turn whose first response asks for `calls` no-op calls (none: it answers at once). */
function turnTrial({ calls, mode }: { calls: number; mode: Mode }): Trial {
  counter.count = 0;
  const steps: ScriptedStep[] =
    calls > 0 ? [{ toolCalls: noopCalls(calls) }, { text: 'done' }] : [{ text: 'done' }];
  const model = scriptedModel(steps);
  const executor = new InProcessExecutor({
    tools: [noop],
    model,
    dispatch: { mode, maxConcurrency: Math.max(1, calls) },
    detection: { enabled: false },
  });
  let outcome: Awaited<ReturnType<InProcessExecutor['runTurn']>> | undefined;
  return {
    run: async () => {
      outcome = await executor.runTurn({ turnId: 'dispatch', input: 'go' });
    },
    verify: () => {
      check(outcome?.status === 'completed', `turn ended ${outcome?.status} (${outcome?.reason ?? ''})`);
      check(counter.count === calls, `${counter.count} of ${calls} tools executed`);
      check(outcome.outputs.length === calls, `${outcome.outputs.length} outputs for ${calls} calls`);
      check(
        outcome.outputs.every((o) => o.status === 'ok'),
        'every output is ok',
      );
      model.assertConsumed();
    },
  };
}

/** The floor: the same no-op `execute`, called directly, all at once. */
function rawLoopTrial({ calls }: { calls: number }): Trial {
  counter.count = 0;
  const args = noopCalls(calls).map((c) => c.args);
  let results: unknown[] = [];
  return {
    run: async () => {
      results = await Promise.all(args.map(async (a) => noop.execute(a, NO_CONTEXT)));
    },
    verify: () => {
      check(counter.count === calls, `${counter.count} of ${calls} raw calls executed`);
      check(
        results.every((r) => r === NOOP_RESULT),
        'every raw call returned the constant',
      );
    },
  };
}

const NO_CONTEXT = {
  turnId: 'raw',
  toolCallId: 'raw',
  idempotencyKey: 'raw/raw',
  attempt: 1,
  signal: new AbortController().signal,
  heartbeat: () => {},
};

const perCallUs = (turn: Sample, baseline: Sample, calls: number) =>
  ((turn.medianMs - baseline.medianMs) * 1_000) / calls;

export async function measureDispatchOverhead({
  warmup,
  runs,
  log,
}: {
  warmup: number;
  runs: number;
  log: (message: string) => void;
}) {
  const calls = DISPATCH_CALLS;
  const samples = await measureInterleaved({
    trials: {
      baseline: () => turnTrial({ calls: 0, mode: 'parallel' }),
      oneCall: () => turnTrial({ calls: 1, mode: 'parallel' }),
      parallel: () => turnTrial({ calls, mode: 'parallel' }),
      sequential: () => turnTrial({ calls, mode: 'sequential' }),
      rawLoop: () => rawLoopTrial({ calls }),
    },
    warmup,
    runs,
    onProgress: (m) => log(`dispatch: ${m}`),
  });
  const report = (mode: Mode) => {
    const usPerCall = perCallUs(samples[mode], samples.baseline, calls);
    return {
      usPerCall: round(usPerCall),
      /** (T(1,000 calls) − T(1 call)) / 999: also removes the second model response's fixed cost. */
      marginalUsPerCall: round(perCallUs(samples[mode], samples.oneCall, calls - 1)),
      /** From the fastest runs ((min − min baseline) / calls): what a quiet machine gets. */
      bestUsPerCall: round(((samples[mode].minMs - samples.baseline.minMs) * 1_000) / calls),
      turnMs: sampleMs(samples[mode]),
      meetsTarget: usPerCall <= TARGET_US_PER_CALL,
    };
  };
  const parallel = report('parallel');
  const sequential = report('sequential');
  return {
    calls,
    config: {
      parallel: { mode: 'parallel', maxConcurrency: calls, detection: false, concurrencySafe: true },
      sequential: { mode: 'sequential', detection: false },
    },
    baselineTurnMs: sampleMs(samples.baseline),
    oneCallTurnMs: sampleMs(samples.oneCall),
    parallel,
    sequential,
    rawLoopUsPerCall: round((samples.rawLoop.medianMs * 1_000) / calls),
    targetUsPerCall: TARGET_US_PER_CALL,
    meetsTarget: parallel.meetsTarget && sequential.meetsTarget,
  };
}

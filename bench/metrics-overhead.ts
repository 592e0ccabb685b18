import { InProcessExecutor, type ScriptedStep, scriptedModel, type TurnObserver } from 'durable-turns';
import { TurnMetrics } from 'durable-turns/metrics';
import { DISPATCH_CALLS } from './dispatch-overhead';
import { check, measureInterleaved, round, sampleMs, type Trial } from './measure';
import { ExecutionCounter, noopCalls, noopTool } from './noop-tool';

/** Metrics may add at most this share to the per-call dispatch overhead. */
export const TARGET_METRICS_RATIO = 0.05;

const counter = new ExecutionCounter();
const noop = noopTool(counter);
/** One set of metrics for the process, as an application has: its series exist after the warm-up. */
const metrics = new TurnMetrics();

/** What any observer costs the executor (it builds and sends the events), apart from metrics. */
const emptyObserver: TurnObserver = { onToolPost() {}, onEntry() {} };

/**
 * A parallel turn of `calls` no-op calls: with metrics (observer and metered model), with an
 * observer that does nothing, or with neither.
 */
function turnTrial({
  calls,
  metered,
  observed = false,
}: {
  calls: number;
  metered: boolean;
  observed?: boolean;
}): Trial {
  counter.count = 0;
  const steps: ScriptedStep[] =
    calls > 0 ? [{ toolCalls: noopCalls(calls) }, { text: 'done' }] : [{ text: 'done' }];
  const model = scriptedModel(steps);
  const executor = new InProcessExecutor({
    tools: [noop],
    model: metered ? metrics.model(model) : model,
    ...(metered ? { observers: [metrics.observer] } : observed ? { observers: [emptyObserver] } : {}),
    dispatch: { mode: 'parallel', maxConcurrency: Math.max(1, calls) },
    detection: { enabled: false },
  });
  let outcome: Awaited<ReturnType<InProcessExecutor['runTurn']>> | undefined;
  return {
    run: async () => {
      outcome = await executor.runTurn({ turnId: 'metrics', input: 'go' });
    },
    verify: () => {
      check(outcome?.status === 'completed', `turn ended ${outcome?.status} (${outcome?.reason ?? ''})`);
      check(counter.count === calls, `${counter.count} of ${calls} tools executed`);
    },
  };
}

/**
 * Per-call dispatch overhead of the in-process executor with metrics on and off: T(1,000 calls) −
 * T(no call), over 1,000, for each, interleaved. The ratio is what metrics add to it.
 */
export async function measureMetricsOverhead({
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
      baselineOff: () => turnTrial({ calls: 0, metered: false }),
      baselineOn: () => turnTrial({ calls: 0, metered: true }),
      off: () => turnTrial({ calls, metered: false }),
      on: () => turnTrial({ calls, metered: true }),
      baselineObserved: () => turnTrial({ calls: 0, metered: false, observed: true }),
      observed: () => turnTrial({ calls, metered: false, observed: true }),
    },
    warmup,
    runs,
    onProgress: (m) => log(`metrics: ${m}`),
  });
  const perCall = (turn: number, baseline: number) => ((turn - baseline) * 1_000) / calls;
  const offUs = perCall(samples.off.medianMs, samples.baselineOff.medianMs);
  const onUs = perCall(samples.on.medianMs, samples.baselineOn.medianMs);
  const observedUs = perCall(samples.observed.medianMs, samples.baselineObserved.medianMs);
  const ratio = onUs / offUs - 1;
  const bestRatio =
    perCall(samples.on.minMs, samples.baselineOn.minMs) /
      perCall(samples.off.minMs, samples.baselineOff.minMs) -
    1;
  const attempts = (
    await metrics.registry.getSingleMetricAsString('durable_turns_tool_attempts_total')
  ).match(/outcome="ok"} (\d+)/)?.[1];
  check(Number(attempts) >= calls * (warmup + runs), `metrics counted ${attempts} attempts`);
  return {
    calls,
    usPerCall: { off: round(offUs), on: round(onUs), emptyObserver: round(observedUs) },
    /** (on − off) / off of the per-call overhead, from the medians. */
    ratio: round(ratio, 4),
    /** The same from the fastest runs: what a quiet machine gets. */
    bestRatio: round(bestRatio, 4),
    /** Of the ratio, what having any observer costs (the executor's event dispatch, not metrics). */
    emptyObserverRatio: round(observedUs / offUs - 1, 4),
    /** Metrics against an observer that does nothing: what the metrics' own work costs. */
    metricsOverObserverRatio: round(onUs / observedUs - 1, 4),
    /** What metrics add to a turn's fixed cost (a turn without calls: one model request, the turn counted). */
    baselineTurnMs: { off: sampleMs(samples.baselineOff), on: sampleMs(samples.baselineOn) },
    turnMs: { off: sampleMs(samples.off), on: sampleMs(samples.on) },
    targetRatio: TARGET_METRICS_RATIO,
    meetsTarget: ratio <= TARGET_METRICS_RATIO,
  };
}

import { InProcessExecutor, type ScriptedStep, scriptedModel, type TurnObserver } from 'durable-turns';
import { TurnMetrics } from 'durable-turns/metrics';
import { DISPATCH_CALLS } from './dispatch-overhead';
import { check, round, type Sample, sampleMs, summarize, type Trial } from './measure';
import { measureRounds, type RunTimes } from './measure-rounds';
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
 *
 * The target is judged by CPU time, paired by round: each round's on and off turns ran moments
 * apart, so their ratio is taken there, and the median of those ratios is the figure. Wall-clock
 * medians are reported too; on a shared machine they swing by more than the 5 % being measured.
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
  const rounds = await measureRounds({
    // Each timed turn follows one of its own size (a spacer where the size changes), and on and
    // off swap places every other round: a 1,000-call turn leaves garbage its successor pays for.
    trials: {
      spacerCalls: () => turnTrial({ calls, metered: false }),
      off: () => turnTrial({ calls, metered: false }),
      on: () => turnTrial({ calls, metered: true }),
      observed: () => turnTrial({ calls, metered: false, observed: true }),
      spacerEmpty: () => turnTrial({ calls: 0, metered: false }),
      baselineOff: () => turnTrial({ calls: 0, metered: false }),
      baselineOn: () => turnTrial({ calls: 0, metered: true }),
      baselineObserved: () => turnTrial({ calls: 0, metered: false, observed: true }),
    },
    swapped: [
      ['off', 'on'],
      ['baselineOff', 'baselineOn'],
    ],
    warmup,
    runs,
    onProgress: (m) => log(`metrics: ${m}`),
  });
  type Name = keyof (typeof rounds)[number];
  const samples = (clock: keyof RunTimes) =>
    Object.fromEntries(
      (Object.keys(rounds[0] ?? {}) as Name[]).map((name) => [
        name,
        summarize(rounds.map((r) => r[name][clock])),
      ]),
    ) as Record<Name, Sample>;
  const wall = samples('wallMs');
  const cpu = samples('cpuMs');
  const perCall = (turn: number, baseline: number) => ((turn - baseline) * 1_000) / calls;
  const offUs = perCall(wall.off.medianMs, wall.baselineOff.medianMs);
  const onUs = perCall(wall.on.medianMs, wall.baselineOn.medianMs);
  const observedUs = perCall(wall.observed.medianMs, wall.baselineObserved.medianMs);
  const ratio = onUs / offUs - 1;
  const bestRatio =
    perCall(wall.on.minMs, wall.baselineOn.minMs) / perCall(wall.off.minMs, wall.baselineOff.minMs) - 1;
  // Within each round, by CPU time: what on and off cost moments apart.
  const roundRatios = (trial: 'on' | 'observed', baseline: 'baselineOn' | 'baselineObserved') =>
    rounds
      .map((r) => (r[trial].cpuMs - r[baseline].cpuMs) / (r.off.cpuMs - r.baselineOff.cpuMs) - 1)
      .sort((x, y) => x - y);
  const cpuRatios = roundRatios('on', 'baselineOn');
  const quantile = (sorted: number[], q: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  const cpuRatio = summarize(cpuRatios).medianMs;
  const attempts = (
    await metrics.registry.getSingleMetricAsString('durable_turns_tool_attempts_total')
  ).match(/outcome="ok"} (\d+)/)?.[1];
  check(Number(attempts) >= calls * (warmup + runs), `metrics counted ${attempts} attempts`);
  return {
    calls,
    /** By the wall clock, from the medians. */
    usPerCall: { off: round(offUs), on: round(onUs), emptyObserver: round(observedUs) },
    /** By CPU time, from the medians. */
    cpuUsPerCall: {
      off: round(perCall(cpu.off.medianMs, cpu.baselineOff.medianMs)),
      on: round(perCall(cpu.on.medianMs, cpu.baselineOn.medianMs)),
      emptyObserver: round(perCall(cpu.observed.medianMs, cpu.baselineObserved.medianMs)),
    },
    /** (on − off) / off of the per-call overhead: the median of each round's, by CPU time. The target's figure. */
    cpuRatio: round(cpuRatio, 4),
    /** The middle half of the rounds' ratios: how far one round's figure can be trusted. */
    cpuRatioQuartiles: [round(quantile(cpuRatios, 0.25), 4), round(quantile(cpuRatios, 0.75), 4)],
    /** The same for an observer that does nothing: the executor's event dispatch, not metrics. */
    emptyObserverCpuRatio: round(summarize(roundRatios('observed', 'baselineObserved')).medianMs, 4),
    /** (on − off) / off by the wall clock, from the medians of all rounds. */
    ratio: round(ratio, 4),
    /** The same from the fastest runs: what a quiet machine gets. */
    bestRatio: round(bestRatio, 4),
    /** Of the ratio, what having any observer costs (the executor's event dispatch, not metrics). */
    emptyObserverRatio: round(observedUs / offUs - 1, 4),
    /** Metrics against an observer that does nothing: what the metrics' own work costs. */
    metricsOverObserverRatio: round(onUs / observedUs - 1, 4),
    /** What metrics add to a turn's fixed cost (a turn without calls: one model request, the turn counted). */
    baselineTurnMs: { off: sampleMs(wall.baselineOff), on: sampleMs(wall.baselineOn) },
    turnMs: { off: sampleMs(wall.off), on: sampleMs(wall.on) },
    targetRatio: TARGET_METRICS_RATIO,
    meetsTarget: cpuRatio <= TARGET_METRICS_RATIO,
  };
}

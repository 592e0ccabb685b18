/**
 * In-process benchmark: `npm run bench:in-process` → bench/results/in-process.json (BENCH_QUICK=1
 * for a smoke run; BENCH_ONLY=dispatch,metrics,observability,peers runs only those sections).
 *
 * Every section but the peers times a turn of CALLS concurrency-safe no-op calls in one response
 * against a turn of none, with and without something, interleaved in the same rounds: a call costs
 * (T(CALLS calls) − T(no call)) / CALLS.
 * - dispatch: what `InProcessExecutor` spends on a call, parallel and sequential, beside the same
 *   `execute` called directly (target ≤ 20 µs a call);
 * - metrics: Prometheus metrics (observer and metered model) on against off (target ≤ 5 % of the
 *   call, by CPU time, paired within each round);
 * - observability: metrics and tracing together on against off, journaled to memory and to SQLite
 *   (target ≤ 5 %);
 * - peers: the same scripted turn on our executor, the Vercel AI SDK and the OpenAI Agents SDK
 *   (target: ours no slower than the fastest peer).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-node';
import {
  InProcessExecutor,
  type InProcessExecutorOptions,
  type ScriptedModel,
  type ScriptedStep,
  scriptedModel,
  type TurnJournal,
  type TurnResult,
} from 'durable-turns';
import { TurnMetrics } from 'durable-turns/metrics';
import { SqliteJournal } from 'durable-turns/sqlite';
import { createTurnTracing } from 'durable-turns/tracing';
import {
  check,
  logger,
  machineInfo,
  measureRounds,
  median,
  medianInterval,
  type RunTimes,
  round,
  runBench,
  type Sample,
  sampleMs,
  type Trial,
  wallSamples,
  writeReport,
} from './measure';
import { ExecutionCounter, NOOP_RESULT, noopCalls, noopTool } from './noop';
import { aiSdkGenerateTrial, aiSdkStreamTrial } from './peers/ai-sdk';
import { openaiAgentsTrial } from './peers/openai-agents';
import {
  PEER_FINAL_TEXT,
  PEER_INPUT,
  PEER_MODEL_RESPONSES,
  PEER_TOOL_CALLS,
  peerBatches,
} from './peers/script';

const quick = process.env.BENCH_QUICK === '1';
const log = logger('bench');
const CALLS = 1_000;
const DISPATCH_TARGET_US = 20;
const METRICS_TARGET_RATIO = 0.05;
const OBSERVABILITY_TARGET_PERCENT = 5;

const counter = new ExecutionCounter();
const noop = noopTool(counter);
/** One set of metrics for the process, as an application has: its series exist after the warm-up. */
const metrics = new TurnMetrics();

/** What a variant changes in the executor, given the turn's scripted model (a metered one wraps it). */
type Variant = (model: ScriptedModel) => Partial<InProcessExecutorOptions>;
const metered: Variant = (model) => ({ model: metrics.model(model), observers: [metrics.observer] });

let turns = 0;
/** A turn whose first response asks for `calls` no-op calls (none: it answers at once). */
function turnTrial(calls: number, variant: Variant): Trial {
  counter.count = 0;
  const model = scriptedModel(
    calls > 0 ? [{ toolCalls: noopCalls(calls) }, { text: 'done' }] : [{ text: 'done' }],
  );
  const executor = new InProcessExecutor({
    tools: [noop],
    model,
    dispatch: { mode: 'parallel', maxConcurrency: Math.max(1, calls) },
    detection: { enabled: false },
    tracing: false,
    ...variant(model),
  });
  const turnId = `turn-${++turns}`;
  let outcome: TurnResult | undefined;
  return {
    run: async () => {
      outcome = await executor.runTurn({ turnId, input: 'go' });
    },
    verify: () => {
      check(outcome?.status === 'completed', `turn ended ${outcome?.status} (${outcome?.reason ?? ''})`);
      check(counter.count === calls, `${counter.count} of ${calls} tools executed`);
      check(
        outcome.outputs.length === calls && outcome.outputs.every((o) => o.status === 'ok'),
        'every call has an ok output',
      );
    },
  };
}

interface Rounds {
  warmup: number;
  runs: number;
}

/**
 * Each variant's per-call cost, round by round. Each timed turn follows one of its own size (a
 * spacer where the size changes: a 1,000-call turn leaves garbage its successor pays for), and the
 * first two variants swap places every other round.
 */
async function perCall<V extends string>(label: string, variants: Record<V, Variant>, o: Rounds) {
  const names = Object.keys(variants) as V[];
  const first = variants[names[0] as V];
  const trials: Record<string, () => Trial> = { spacerCalls: () => turnTrial(CALLS, first) };
  for (const v of names) trials[`${v}:calls`] = () => turnTrial(CALLS, variants[v]);
  trials.spacerEmpty = () => turnTrial(0, first);
  for (const v of names) trials[`${v}:empty`] = () => turnTrial(0, variants[v]);
  const [a, b] = names;
  const rounds = await measureRounds({
    trials,
    ...o,
    swapped: [
      [`${a}:calls`, `${b}:calls`],
      [`${a}:empty`, `${b}:empty`],
    ],
    onProgress: (m) => log(`${label}: ${m}`),
  });
  const us = (v: V, clock: keyof RunTimes) =>
    rounds.map((r) => ((r[`${v}:calls`]![clock] - r[`${v}:empty`]![clock]) * 1_000) / CALLS);
  return {
    /** Medians of µs a call, by the wall clock and by CPU time, and the fastest round's (a quiet machine's). */
    usPerCall: (v: V) => ({
      wall: round(median(us(v, 'wallMs'))),
      cpu: round(median(us(v, 'cpuMs'))),
      best: round(Math.min(...us(v, 'wallMs'))),
    }),
    /** on / off − 1 of the per-call cost by CPU time, each round's; the median and its 90 % interval. */
    overhead: (on: V, off: V) => {
      const offs = us(off, 'cpuMs');
      const ratios = us(on, 'cpuMs').map((x, i) => x / (offs[i] ?? Number.NaN) - 1);
      const { low, high } = medianInterval(ratios);
      return { median: median(ratios), interval: { low: round(low, 4), high: round(high, 4) } };
    },
  };
}

async function dispatch(o: Rounds) {
  const runs = await perCall(
    'dispatch',
    { parallel: () => ({}), sequential: () => ({ dispatch: { mode: 'sequential' } }) },
    o,
  );
  // The floor: the same no-op `execute`, called directly, all at once.
  const args = noopCalls(CALLS).map((c) => c.args);
  const context = {
    turnId: 'raw',
    toolCallId: 'raw',
    idempotencyKey: 'raw/raw',
    attempt: 1,
    signal: new AbortController().signal,
    heartbeat: () => {},
  };
  let results: unknown[] = [];
  const raw = await measureRounds({
    trials: {
      raw: () => ({
        run: async () => {
          results = await Promise.all(args.map(async (a) => noop.execute(a, context)));
        },
        verify: () =>
          check(
            results.every((r) => r === NOOP_RESULT),
            'every raw call returned the constant',
          ),
      }),
    },
    ...o,
  });
  const rawUs = (median(raw.map((r) => r.raw.wallMs)) * 1_000) / CALLS;
  const parallel = runs.usPerCall('parallel');
  const sequential = runs.usPerCall('sequential');
  return {
    calls: CALLS,
    config: { parallel: `maxConcurrency ${CALLS}`, detection: false, concurrencySafe: true },
    parallel,
    sequential,
    rawLoopUsPerCall: round(rawUs),
    parallelOverRawLoop: round(parallel.wall / rawUs, 1),
    targetUsPerCall: DISPATCH_TARGET_US,
    meetsTarget: parallel.wall <= DISPATCH_TARGET_US && sequential.wall <= DISPATCH_TARGET_US,
  };
}

async function metricsOverhead(o: Rounds) {
  const runs = await perCall('metrics', { off: () => ({}), on: metered }, o);
  const ratio = runs.overhead('on', 'off');
  const attempts = (
    await metrics.registry.getSingleMetricAsString('durable_turns_tool_attempts_total')
  ).match(/outcome="ok"} (\d+)/)?.[1];
  check(Number(attempts) >= CALLS * (o.warmup + o.runs), `metrics counted ${attempts} attempts`);
  return {
    calls: CALLS,
    usPerCall: { off: runs.usPerCall('off'), on: runs.usPerCall('on') },
    /** (on − off) / off of the per-call cost: the median of each round's, by CPU time. The target's figure. */
    cpuRatio: round(ratio.median, 4),
    cpuRatioInterval: ratio.interval,
    targetRatio: METRICS_TARGET_RATIO,
    meetsTarget: ratio.median <= METRICS_TARGET_RATIO,
  };
}

async function observability(o: Rounds) {
  const discard: SpanExporter = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} };
  const tracing = createTurnTracing({ spanProcessors: [new BatchSpanProcessor(discard)] });
  const dir = mkdtempSync(join(tmpdir(), 'durable-turns-observability-'));
  const sqlite = new SqliteJournal({ path: join(dir, 'journal.db') });
  const report: Record<string, unknown> = {};
  try {
    for (const [journal, options] of [
      ['memory', {}],
      ['sqlite', { journal: sqlite as TurnJournal }],
    ] as const) {
      const runs = await perCall(
        `observability (${journal})`,
        { off: () => options, on: (model) => ({ ...metered(model), tracing, ...options }) },
        o,
      );
      const overhead = runs.overhead('on', 'off');
      report[journal] = {
        usPerCall: { off: runs.usPerCall('off'), on: runs.usPerCall('on') },
        cpuOverheadPercent: round(overhead.median * 100, 1),
        cpuOverheadIntervalPercent: [overhead.interval.low * 100, overhead.interval.high * 100].map((x) =>
          round(x, 1),
        ),
        meetsTarget: overhead.median * 100 <= OBSERVABILITY_TARGET_PERCENT,
      };
    }
  } finally {
    await tracing.shutdown();
    sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    calls: CALLS,
    config: {
      metrics: 'TurnMetrics observer + metered model',
      tracing: 'BatchSpanProcessor (SDK defaults) → exporter that discards',
    },
    ...report,
    targetOverheadPercent: OBSERVABILITY_TARGET_PERCENT,
  };
}

/** The peer turn on our InProcessExecutor, parallel dispatch, everything else at its default. */
function oursTrial(): Trial {
  counter.count = 0;
  const steps: ScriptedStep[] = [
    ...peerBatches().map((batch) => ({ toolCalls: batch.map((c) => ({ ...c, name: 'noop' })) })),
    { text: PEER_FINAL_TEXT },
  ];
  const model = scriptedModel(steps);
  const executor = new InProcessExecutor({
    tools: [noop],
    model,
    dispatch: { mode: 'parallel', maxConcurrency: Math.max(...peerBatches().map((b) => b.length)) },
  });
  let result: TurnResult | undefined;
  return {
    run: async () => {
      result = await executor.runTurn({ turnId: 'peer-turn', input: PEER_INPUT });
    },
    verify: () => {
      check(result?.status === 'completed', `ours: turn ended ${result?.status} (${result?.reason ?? ''})`);
      check(result.text === PEER_FINAL_TEXT, `ours: final text ${JSON.stringify(result.text)}`);
      check(counter.count === PEER_TOOL_CALLS, `ours: ${counter.count} of ${PEER_TOOL_CALLS} tools executed`);
      check(
        result.outputs.every((out) => out.status === 'ok'),
        'ours: every call has an ok output',
      );
      model.assertConsumed();
    },
  };
}

/** The same scripted turn on our executor and on each peer framework, timed round-robin. */
async function peers(o: Rounds) {
  const samples = wallSamples(
    await measureRounds({
      trials: {
        ours: oursTrial,
        aiSdk: aiSdkGenerateTrial,
        aiSdkStream: aiSdkStreamTrial,
        openaiAgents: openaiAgentsTrial,
      },
      ...o,
      onProgress: (m) => log(`peers: ${m}`),
    }),
  );
  const { ours, ...others } = samples;
  const fastest = Object.entries(others).reduce((x, y) => (y[1].medianMs < x[1].medianMs ? y : x));
  const turn = (sample: Sample) => ({ msPerTurn: round(sample.medianMs), turnMs: sampleMs(sample) });
  return {
    turn: { modelResponses: PEER_MODEL_RESPONSES, toolCalls: PEER_TOOL_CALLS },
    frameworks: {
      ours: 'InProcessExecutor, parallel, maxConcurrency 10, defaults otherwise (journal, health, loop detection on)',
      aiSdk: 'ai 7 generateText + MockLanguageModelV4.doGenerate',
      aiSdkStream: 'ai 7 streamText + MockLanguageModelV4.doStream (ours streams too)',
      openaiAgents: '@openai/agents Runner.run + custom Model.getResponse, tracing disabled',
    },
    ...Object.fromEntries(Object.entries(samples).map(([name, sample]) => [name, turn(sample)])),
    /** ours / peer, by median ms per turn: below 1 means ours is faster. */
    ratios: Object.fromEntries(
      Object.entries(others).map(([name, sample]) => [
        `oursOver${name[0]?.toUpperCase()}${name.slice(1)}`,
        round(ours.medianMs / sample.medianMs),
      ]),
    ),
    fastestPeer: fastest[0],
    meetsTarget: ours.medianMs <= fastest[1].medianMs,
  };
}

async function main(): Promise<void> {
  const started = performance.now();
  const loadBefore = loadavg()[0] ?? 0;
  const only = process.env.BENCH_ONLY;
  const selected = new Set(only?.split(',') ?? ['dispatch', 'metrics', 'observability', 'peers']);
  const rounds = { warmup: quick ? 1 : 5, runs: quick ? 3 : 21 };
  const section = async <T>(name: string, run: () => Promise<T>) =>
    selected.has(name) ? { [name]: await run() } : {};
  const report = {
    machine: machineInfo(loadBefore),
    method:
      'median of interleaved runs after warm-up; a minor GC before each run; setup (executor, model, agent) and verification untimed; tools defined once per framework',
    ...(await section('dispatch', () => dispatch(rounds))),
    ...(await section('metrics', () => metricsOverhead({ ...rounds, runs: quick ? 3 : 101 }))),
    ...(await section('observability', () => observability(rounds))),
    // Last: the peers' libraries switch on async context tracking for the rest of the process.
    ...(await section('peers', () => peers({ warmup: quick ? 3 : 50, runs: quick ? 5 : 200 }))),
    benchDurationMs: round(performance.now() - started, 0),
  };
  await writeReport(only ? `in-process-${only.replaceAll(',', '-')}.json` : 'in-process.json', report);
}

runBench(main);

import {
  AlwaysOffSampler,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-node';
import { InProcessExecutor, scriptedModel } from 'durable-turns';
import { createTurnTracing } from 'durable-turns/tracing';
import { check, round, sampleMs, summarize } from './measure';
import { measureRounds, type RunTimes } from './measure-rounds';
import { ExecutionCounter, noopCalls, noopTool } from './noop-tool';
import { measureSpanFloor } from './span-floor';

export const TRACED_CALLS = 1_000;
/** Tracing may add at most this much to the per-call dispatch cost. */
export const TARGET_OVERHEAD_PERCENT = 5;

/** Counts the spans it is handed and sends them nowhere: the SDK's cost without the network's. */
class CountingExporter implements SpanExporter {
  spans = 0;
  export(spans: ReadableSpan[], done: (result: { code: 0 }) => void): void {
    this.spans += spans.length;
    done({ code: 0 });
  }
  async shutdown(): Promise<void> {}
}

/** What a run runs: tracing off, on, or on but sampled out; a turn of TRACED_CALLS calls or none. */
type Config = `${'off' | 'on' | 'sampledOut' | 'appSampledOut' | 'spacer'}${'Calls' | 'Empty'}`;

const counter = new ExecutionCounter();
const noop = noopTool(counter);

/**
 * The dispatch benchmark's turn (1,000 concurrency-safe no-op calls in one response) with tracing
 * off and on (a batching processor, as `OTEL_TRACES_EXPORTER=otlp` makes, in front of an exporter
 * that discards): what the spans of each call — one `execute_tool` per attempt — cost per call.
 * Both in one process: once the batching processor has exported, the context manager's promise
 * hooks are on (its export runs in a context), for the untraced turns too — what a process
 * without any tracing would not pay, and not counted here.
 */
export async function measureTracingOverhead({
  warmup,
  runs,
  log,
}: {
  warmup: number;
  runs: number;
  log: (message: string) => void;
}) {
  // First, while the process is fresh: after the turns, V8 may have moved the span's allocations
  // to the old generation (allocation-site pretenuring), and the floor would come out higher.
  const floor = measureSpanFloor({ rounds: Math.max(20, runs) });
  const exporter = new CountingExporter();
  const tracing = createTurnTracing({ spanProcessors: [new BatchSpanProcessor(exporter)] });
  // What an operator sampling turns gets for the turns left out: OTEL_TRACES_SAMPLER set to
  // `parentbased_traceidratio`, here with a ratio of 0, so every turn is left out.
  const sampledOut = withEnv(
    { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' },
    () => createTurnTracing({ spanProcessors: [new BatchSpanProcessor(exporter)] }),
  );
  // An application's own sampler that leaves every turn out (the Tracer makes every span).
  const appSampledOut = createTurnTracing({
    spanProcessors: [new BatchSpanProcessor(exporter)],
    sampler: new AlwaysOffSampler(),
  });
  const tracingOf = { off: false, spacer: false, on: tracing, sampledOut, appSampledOut } as const;
  const trial = (config: Config) => {
    const calls = config.endsWith('Empty') ? 0 : TRACED_CALLS;
    const traced = tracingOf[config.replace(/(Calls|Empty)$/, '') as keyof typeof tracingOf];
    counter.count = 0;
    const model = scriptedModel(
      calls > 0 ? [{ toolCalls: noopCalls(calls) }, { text: 'done' }] : [{ text: 'done' }],
    );
    const executor = new InProcessExecutor({
      tools: [noop],
      model,
      dispatch: { mode: 'parallel', maxConcurrency: Math.max(1, calls) },
      detection: { enabled: false },
      tracing: traced,
    });
    let status: string | undefined;
    return {
      run: async () => {
        status = (await executor.runTurn({ turnId: 'traced', input: 'go' })).status;
      },
      verify: () => {
        check(status === 'completed', `turn ended ${status}`);
        check(counter.count === calls, `${counter.count} of ${calls} tools executed`);
      },
    };
  };
  // A turn pays part of the garbage collection its predecessor left (promotion, sweeping), and a
  // 1,000-call turn leaves far more than an empty one: run in the order off, on, the second would
  // be billed ~0.3 µs a call of the first's — as much as the target. So every timed turn follows
  // one of its own size (the spacers see to that where the size changes), and off and on swap
  // places every other round. CPU time as well as wall: on a shared machine the wall clock also
  // counts the time other processes had the core, at ~0.3 µs a call most of the signal.
  const rounds = await measureRounds({
    trials: {
      spacerCalls: () => trial('spacerCalls'),
      offCalls: () => trial('offCalls'),
      onCalls: () => trial('onCalls'),
      sampledOutCalls: () => trial('sampledOutCalls'),
      appSampledOutCalls: () => trial('appSampledOutCalls'),
      spacerEmpty: () => trial('spacerEmpty'),
      offEmpty: () => trial('offEmpty'),
      onEmpty: () => trial('onEmpty'),
      sampledOutEmpty: () => trial('sampledOutEmpty'),
      appSampledOutEmpty: () => trial('appSampledOutEmpty'),
    },
    swapped: [
      ['offCalls', 'onCalls'],
      ['offEmpty', 'onEmpty'],
    ],
    warmup,
    runs,
    onProgress: (m) => log(`tracing: ${m}`),
  });
  await tracing.forceFlush();
  const sample = (clock: keyof RunTimes, config: Config) => summarize(rounds.map((r) => r[config][clock]));
  const wall = (config: Config) => sample('wallMs', config);
  const cpu = (config: Config) => sample('cpuMs', config);
  const perCall = (turn: number, baseline: number) => ((turn - baseline) * 1_000) / TRACED_CALLS;
  const offUs = perCall(wall('offCalls').medianMs, wall('offEmpty').medianMs);
  const onUs = perCall(wall('onCalls').medianMs, wall('onEmpty').medianMs);
  const overheadPercent = ((onUs - offUs) / offUs) * 100;
  const sampledOutUs = perCall(wall('sampledOutCalls').medianMs, wall('sampledOutEmpty').medianMs);
  const appSampledOutUs = perCall(wall('appSampledOutCalls').medianMs, wall('appSampledOutEmpty').medianMs);
  // From the fastest runs, as the dispatch report's bestUsPerCall: what a quiet machine gets.
  const bestExtraUs =
    perCall(wall('onCalls').minMs, wall('onEmpty').minMs) -
    perCall(wall('offCalls').minMs, wall('offEmpty').minMs);
  const cpuOffUs = perCall(cpu('offCalls').medianMs, cpu('offEmpty').medianMs);
  const cpuExtraUs = perCall(cpu('onCalls').medianMs, cpu('onEmpty').medianMs) - cpuOffUs;
  const targetUs = (offUs * TARGET_OVERHEAD_PERCENT) / 100;
  await tracing.shutdown();
  await sampledOut.shutdown();
  await appSampledOut.shutdown();
  return {
    calls: TRACED_CALLS,
    config: {
      processor: 'BatchSpanProcessor (SDK defaults)',
      exporter: 'discards',
      captureMessageContent: false,
    },
    usPerCallOff: round(offUs),
    usPerCallOn: round(onUs),
    extraUsPerCall: round(onUs - offUs),
    overheadPercent: round(overheadPercent, 1),
    bestExtraUsPerCall: round(bestExtraUs),
    /** The same from the runs' CPU time (medians): what tracing costs, less what the machine's other load adds. */
    cpuUsPerCallOff: round(cpuOffUs),
    cpuExtraUsPerCall: round(cpuExtraUs),
    cpuOverheadPercent: round((cpuExtraUs / cpuOffUs) * 100, 1),
    /** Turns the environment's parent-based sampler leaves out: their spans are not recorded. */
    sampledOutExtraUsPerCall: round(sampledOutUs - offUs),
    /** The same left out by an application's sampler, which the Tracer asks for every span. */
    appSampledOutExtraUsPerCall: round(appSampledOutUs - offUs),
    /** Per turn: the invoke_agent and chat spans. */
    extraMsPerTurn: round(wall('onEmpty').medianMs - wall('offEmpty').medianMs),
    turnMs: { off: sampleMs(wall('offCalls')), on: sampleMs(wall('onCalls')) },
    spansExported: exporter.spans,
    targetOverheadPercent: TARGET_OVERHEAD_PERCENT,
    meetsTarget: overheadPercent <= TARGET_OVERHEAD_PERCENT,
    /** The target in µs: what 5 % of this run's untraced call allows tracing to add. */
    targetExtraUsPerCall: round(targetUs),
    /**
     * One span's start and end alone, in a tight loop without a processor (span-floor.ts): no
     * traced call can add less. Its best run above the target means a span per attempt cannot meet it.
     */
    spanFloor: floor,
    targetBelowSpanFloor: targetUs < floor.usPerSpan.best,
  };
}

/** Runs `make` with these environment variables set (the SDK reads its sampler from them). */
function withEnv<T>(env: Record<string, string>, make: () => T): T {
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  Object.assign(process.env, env);
  try {
    return make();
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

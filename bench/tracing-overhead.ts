import {
  AlwaysOffSampler,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-node';
import { InProcessExecutor, scriptedModel } from 'durable-turns';
import { createTurnTracing, type TurnTracing } from 'durable-turns/tracing';
import { check, measureInterleaved, round, sampleMs } from './measure';
import { ExecutionCounter, noopCalls, noopTool } from './noop-tool';

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

const counter = new ExecutionCounter();
const noop = noopTool(counter);

/**
 * The dispatch benchmark's turn (1,000 concurrency-safe no-op calls in one response) with tracing
 * off and on (a batching processor, as `OTEL_TRACES_EXPORTER=otlp` makes, in front of an exporter
 * that discards): what the spans of each call — one `execute_tool` per attempt — cost per call.
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
  const exporter = new CountingExporter();
  const tracing = createTurnTracing({ spanProcessors: [new BatchSpanProcessor(exporter)] });
  // What an operator sampling turns gets for the turns left out (OTEL_TRACES_SAMPLER).
  const sampledOut = createTurnTracing({
    spanProcessors: [new BatchSpanProcessor(exporter)],
    sampler: new AlwaysOffSampler(),
  });
  const trial = ({ calls, traced }: { calls: number; traced: TurnTracing | false }) => {
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
  const samples = await measureInterleaved({
    trials: {
      baselineOff: () => trial({ calls: 0, traced: false }),
      baselineOn: () => trial({ calls: 0, traced: tracing }),
      off: () => trial({ calls: TRACED_CALLS, traced: false }),
      on: () => trial({ calls: TRACED_CALLS, traced: tracing }),
      baselineSampledOut: () => trial({ calls: 0, traced: sampledOut }),
      sampledOut: () => trial({ calls: TRACED_CALLS, traced: sampledOut }),
    },
    warmup,
    runs,
    onProgress: (m) => log(`tracing: ${m}`),
  });
  await tracing.forceFlush();
  const perCall = (turn: number, baseline: number) => ((turn - baseline) * 1_000) / TRACED_CALLS;
  const offUs = perCall(samples.off.medianMs, samples.baselineOff.medianMs);
  const onUs = perCall(samples.on.medianMs, samples.baselineOn.medianMs);
  const overheadPercent = ((onUs - offUs) / offUs) * 100;
  const sampledOutUs = perCall(samples.sampledOut.medianMs, samples.baselineSampledOut.medianMs);
  // From the fastest runs, as the dispatch report's bestUsPerCall: what a quiet machine gets.
  const bestExtraUs =
    perCall(samples.on.minMs, samples.baselineOn.minMs) -
    perCall(samples.off.minMs, samples.baselineOff.minMs);
  await tracing.shutdown();
  await sampledOut.shutdown();
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
    /** Turns a sampler leaves out: their spans are not recorded. */
    sampledOutExtraUsPerCall: round(sampledOutUs - offUs),
    /** Per turn: the invoke_agent and chat spans. */
    extraMsPerTurn: round(samples.baselineOn.medianMs - samples.baselineOff.medianMs),
    turnMs: { off: sampleMs(samples.off), on: sampleMs(samples.on) },
    spansExported: exporter.spans,
    targetOverheadPercent: TARGET_OVERHEAD_PERCENT,
    meetsTarget: overheadPercent <= TARGET_OVERHEAD_PERCENT,
  };
}

import { context, trace } from '@opentelemetry/api';
import { AlwaysOnSampler, ParentBasedSampler } from '@opentelemetry/sdk-trace-node';
import { createTurnTracing, type TurnTracing } from 'durable-turns/tracing';
import { endToolAttemptSpan, startToolAttemptSpan } from '../tracing/trace-tool-attempt';
import { collectGarbage, round, summarize } from './measure';

const SPANS = 1_000;

/**
 * What one `execute_tool` span costs at the least: started and ended for each of a turn's 1,000
 * calls (children of a sampled turn span, with the attributes the executors set), in a tight loop
 * with no dispatch around it and no span processor behind it. No traced call can cost less than
 * this, whatever the executor does; tracing-overhead compares its target with it. Made as the
 * executors make it (ChildSpans), and through the SDK's Tracer for comparison (what a sampler of
 * the application's gets).
 */
export function measureSpanFloor({ rounds }: { rounds: number }) {
  const childSpans = createTurnTracing({ spanProcessors: [] });
  // A sampler given in code: ChildSpans steps aside and the Tracer makes every span.
  const tracer = createTurnTracing({
    spanProcessors: [],
    sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }),
  });
  const calls = Array.from({ length: SPANS }, (_, i) => ({
    toolCallId: `call_${i}`,
    toolName: 'noop',
    input: { i },
  }));
  const result = { status: 'ok', content: 'ok', resultHash: 'h' } as const;
  const time = (tracing: TurnTracing) => {
    const parent = trace.setSpan(context.active(), tracing.tracer.startSpan('invoke_agent'));
    collectGarbage();
    const started = performance.now();
    // As in a wave: every call's span is open before the first ends.
    const spans = calls.map((call) =>
      startToolAttemptSpan({ tracing, turnId: 't', call, attempt: 1, parent }),
    );
    for (const span of spans) endToolAttemptSpan({ tracing, span, result });
    return performance.now() - started;
  };
  const samples = { childSpans: [] as number[], tracer: [] as number[] };
  // The first rounds warm the code up; then both ways alternate.
  for (let i = 0; i < rounds + 10; i++) {
    const child = time(childSpans);
    const sdk = time(tracer);
    if (i < 10) continue;
    samples.childSpans.push(child);
    samples.tracer.push(sdk);
  }
  const usPerSpan = (times: number[]) => {
    const { medianMs, minMs } = summarize(times);
    return { median: round((medianMs * 1_000) / SPANS), best: round((minMs * 1_000) / SPANS) };
  };
  return {
    spans: SPANS,
    rounds,
    usPerSpan: usPerSpan(samples.childSpans),
    tracerUsPerSpan: usPerSpan(samples.tracer),
  };
}

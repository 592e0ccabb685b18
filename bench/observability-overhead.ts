import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-node';
import { InProcessExecutor, scriptedModel, type TurnJournal } from 'durable-turns';
import { TurnMetrics } from 'durable-turns/metrics';
import { SqliteJournal } from 'durable-turns/sqlite';
import { createTurnTracing } from 'durable-turns/tracing';
import { check, round, summarize, type Trial } from './measure';
import { measureRounds, type RunTimes } from './measure-rounds';
import { ExecutionCounter, noopCalls, noopTool } from './noop-tool';

/** Metrics and tracing together may add at most this much to the per-call cost. */
export const TARGET_OVERHEAD_PERCENT = 5;
const CALLS = 1_000;

class DiscardingExporter implements SpanExporter {
  export(_spans: ReadableSpan[], done: (result: { code: 0 }) => void): void {
    done({ code: 0 });
  }
  async shutdown(): Promise<void> {}
}

const counter = new ExecutionCounter();
const noop = noopTool(counter);

type JournalKind = 'memory' | 'sqlite';

/**
 * What an operator turns on — Prometheus metrics (observer and metered model) and OpenTelemetry
 * tracing (a batching processor in front of an exporter that discards) — costs per tool call, for
 * the in-process executor journaling to memory (the engine's bare dispatch: what a no-op call
 * costs at the least) and to SQLite (a durable in-process turn: each entry a write). A turn of
 * 1,000 concurrency-safe no-op calls minus a turn with none, over 1,000; on and off interleaved.
 */
export async function measureObservabilityOverhead({
  warmup,
  runs,
  log,
}: {
  warmup: number;
  runs: number;
  log: (message: string) => void;
}) {
  const metrics = new TurnMetrics();
  const tracing = createTurnTracing({ spanProcessors: [new BatchSpanProcessor(new DiscardingExporter())] });
  const dir = mkdtempSync(join(tmpdir(), 'durable-turns-observability-'));
  const sqlite = new SqliteJournal({ path: join(dir, 'journal.db') });
  let turns = 0;
  type Config = `${'off' | 'on' | 'spacer'}${'Calls' | 'Empty'}`;
  const trial = (journal: JournalKind, config: Config): Trial => {
    const calls = config.endsWith('Empty') ? 0 : CALLS;
    const on = config.startsWith('on');
    counter.count = 0;
    const model = scriptedModel(
      calls > 0 ? [{ toolCalls: noopCalls(calls) }, { text: 'done' }] : [{ text: 'done' }],
    );
    const executor = new InProcessExecutor({
      tools: [noop],
      model: on ? metrics.model(model) : model,
      ...(on ? { observers: [metrics.observer] } : {}),
      tracing: on ? tracing : false,
      dispatch: { mode: 'parallel', maxConcurrency: Math.max(1, calls) },
      detection: { enabled: false },
      ...(journal === 'sqlite' ? { journal: sqlite as TurnJournal } : {}),
    });
    turns += 1;
    const turnId = `observability-${turns}`;
    let status: string | undefined;
    return {
      run: async () => {
        status = (await executor.runTurn({ turnId, input: 'go' })).status;
      },
      verify: () => {
        check(status === 'completed', `turn ended ${status}`);
        check(counter.count === calls, `${counter.count} of ${calls} tools executed`);
      },
    };
  };
  const report: Partial<Record<JournalKind, ReturnType<typeof summarizeOverhead>>> = {};
  try {
    for (const journal of ['memory', 'sqlite'] as const) {
      // A turn pays part of its predecessor's garbage: each timed turn follows one of its own size
      // (the spacers) and off and on swap places every other round (measureRounds' `swapped`).
      const rounds = await measureRounds({
        trials: {
          spacerCalls: () => trial(journal, 'spacerCalls'),
          offCalls: () => trial(journal, 'offCalls'),
          onCalls: () => trial(journal, 'onCalls'),
          spacerEmpty: () => trial(journal, 'spacerEmpty'),
          offEmpty: () => trial(journal, 'offEmpty'),
          onEmpty: () => trial(journal, 'onEmpty'),
        },
        swapped: [
          ['offCalls', 'onCalls'],
          ['offEmpty', 'onEmpty'],
        ],
        warmup,
        runs,
        onProgress: (m) => log(`observability (${journal}): ${m}`),
      });
      const median = (clock: keyof RunTimes, config: Config) =>
        summarize(rounds.map((r) => r[config][clock])).medianMs;
      const perCall = (clock: keyof RunTimes, on: 'on' | 'off') =>
        ((median(clock, `${on}Calls`) - median(clock, `${on}Empty`)) * 1_000) / CALLS;
      report[journal] = summarizeOverhead({
        offUs: perCall('wallMs', 'off'),
        onUs: perCall('wallMs', 'on'),
        cpuOffUs: perCall('cpuMs', 'off'),
        cpuOnUs: perCall('cpuMs', 'on'),
      });
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
    targetOverheadPercent: TARGET_OVERHEAD_PERCENT,
  };
}

function summarizeOverhead({
  offUs,
  onUs,
  cpuOffUs,
  cpuOnUs,
}: {
  offUs: number;
  onUs: number;
  cpuOffUs: number;
  cpuOnUs: number;
}) {
  const overheadPercent = ((onUs - offUs) / offUs) * 100;
  const cpuOverheadPercent = ((cpuOnUs - cpuOffUs) / cpuOffUs) * 100;
  return {
    usPerCallOff: round(offUs),
    usPerCallOn: round(onUs),
    extraUsPerCall: round(onUs - offUs),
    overheadPercent: round(overheadPercent, 1),
    /** The process's CPU time, which other processes on a shared machine do not inflate. */
    cpuUsPerCallOff: round(cpuOffUs),
    cpuExtraUsPerCall: round(cpuOnUs - cpuOffUs),
    cpuOverheadPercent: round(cpuOverheadPercent, 1),
    meetsTarget: cpuOverheadPercent <= TARGET_OVERHEAD_PERCENT,
  };
}

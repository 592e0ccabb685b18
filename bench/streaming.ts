/**
 * Streaming benchmark: what launching tool calls mid-stream buys. One response completes three tool
 * calls at 100, 400 and 700 ms and ends at 1,000 ms; each tool takes 500 ms and is concurrency-safe.
 * Mid-stream launch should end the tool phase at ≈1,200 ms (700 + 500); the same calls arriving
 * only at the end of the stream end it at ≈1,500 ms. Both on the in-process executor and on
 * Temporal (a dev server this script starts, one worker in this process), plus, on Temporal, the
 * latency from a call's arguments completing in the stream to the tool starting.
 *
 * Targets: mid-stream launch saves ≥ 200 ms of the ideal 300 on both; on Temporal a call's tool
 * starts within 50 ms (median) of its arguments completing.
 *
 *   npm run bench:streaming → bench/results/streaming.json (BENCH_QUICK=1 for a smoke run)
 */

import { loadavg } from 'node:os';
import {
  defineTool,
  InProcessExecutor,
  type ScriptedPart,
  scriptedModel,
  type TurnModel,
  type TurnResult,
} from 'durable-turns';
import { TurnClient } from 'durable-turns/client';
import { createTurnWorker } from 'durable-turns/worker';
import { z } from 'zod';
import { percentile, StreamClock, ToolClock } from './clocks';
import {
  check,
  logger,
  machineInfo,
  measureRounds,
  round,
  runBench,
  sampleMs,
  summarize,
  type Trial,
  writeReport,
} from './measure';
import { openBenchTemporal, startWorker } from './temporal-env';

const quick = process.env.BENCH_QUICK === '1';
const log = logger('bench');

const TASK_QUEUE = 'bench-streaming';
const TOOL_MS = 500;
/** When each call's arguments complete in the stream, and when the stream ends (ms from its start). */
const CALLS_AT = [100, 400, 700] as const;
const STREAM_END_AT = 1_000;
const CALL_IDS = ['a', 'b', 'c'] as const;
const EXPECTED = {
  midStreamMs: CALLS_AT[CALLS_AT.length - 1]! + TOOL_MS,
  atStreamEndMs: STREAM_END_AT + TOOL_MS,
};
const LATENCY_TARGET_MEDIAN_MS = 50;
const MIN_LATENCY_SAMPLES = 30;
/** Mid-stream launch should save at least this much of the ideal 300 ms. */
const MIN_SAVING_MS = 200;

const toolClock = new ToolClock();
const streamClock = new StreamClock();

const slow = defineTool({
  name: 'slow',
  description: 'Takes the given milliseconds, then answers.',
  input: z.object({ ms: z.number() }),
  concurrencySafe: true,
  execute: async ({ ms }, ctx) => {
    const times = toolClock.start(ctx.turnId, ctx.toolCallId);
    await new Promise((resolve) => setTimeout(resolve, ms));
    times.endedAt = performance.now();
    return `${ctx.toolCallId} done`;
  },
});

const callPart = (id: string, delayMs: number): ScriptedPart => ({
  type: 'tool-call',
  toolCallId: id,
  toolName: 'slow',
  input: JSON.stringify({ ms: TOOL_MS }),
  delayMs,
});
const finishPart = (delayMs: number): ScriptedPart => ({
  type: 'finish',
  finishReason: 'tool-calls',
  usage: { inputTokens: 1, outputTokens: 1 },
  delayMs,
});

/** Parts' `delayMs` is the wait before each part, so it is the gap since the previous one. */
function midStreamParts(): ScriptedPart[] {
  let at = 0;
  const parts = CALL_IDS.map((id, i) => {
    const part = callPart(id, CALLS_AT[i]! - at);
    at = CALLS_AT[i]!;
    return part;
  });
  return [...parts, finishPart(STREAM_END_AT - at)];
}

/** The same calls, all complete only when the stream ends. */
function atStreamEndParts(): ScriptedPart[] {
  return [...CALL_IDS.map((id, i) => callPart(id, i === 0 ? STREAM_END_AT : 0)), finishPart(0)];
}

const scripted = {
  midStream: scriptedModel([{ parts: midStreamParts() }, { text: 'done' }], 'midStream'),
  atStreamEnd: scriptedModel([{ parts: atStreamEndParts() }, { text: 'done' }], 'atStreamEnd'),
};
type Variant = keyof typeof scripted;
const clocked: Record<Variant, TurnModel> = {
  midStream: streamClock.wrap(scripted.midStream),
  atStreamEnd: streamClock.wrap(scripted.atStreamEnd),
};

interface TurnTimes {
  /** The last tool's end, from the start of the model stream. */
  toolPhaseEndMs: number;
  /** Per call: its tool's start minus the moment the model yielded its arguments. */
  launchLatencyMs: number[];
}

function turnTimes(turnId: string): TurnTimes {
  const stream = streamClock.get(turnId, 0);
  check(stream?.endedAt !== undefined, `${turnId}: the first response streamed to its end`);
  const launchLatencyMs: number[] = [];
  let lastEnd = Number.NEGATIVE_INFINITY;
  for (const id of CALL_IDS) {
    const tool = toolClock.get(turnId, id);
    const yielded = stream.callYieldedAt.get(id);
    check(tool?.endedAt !== undefined && yielded !== undefined, `${turnId}: call ${id} was streamed and ran`);
    launchLatencyMs.push(tool.startedAt - yielded);
    lastEnd = Math.max(lastEnd, tool.endedAt);
  }
  return { toolPhaseEndMs: lastEnd - stream.startedAt, launchLatencyMs };
}

function verifyResult(turnId: string, result: TurnResult | undefined): void {
  check(result?.status === 'completed', `${turnId}: turn ended ${result?.status} (${result?.reason ?? ''})`);
  check(result.text === 'done', `${turnId}: final text ${JSON.stringify(result.text)}`);
  check(
    result.outputs.map((o) => `${o.toolCallId}:${o.status}`).join(',') ===
      CALL_IDS.map((id) => `${id}:ok`).join(','),
    `${turnId}: outputs ${JSON.stringify(result.outputs.map((o) => [o.toolCallId, o.status]))}`,
  );
}

type Executor = 'inProcess' | 'temporal';
type TrialName = `${Executor}_${Variant}`;

let turnSeq = 0;

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const warmup = quick ? 1 : 2;
  const runs = quick ? 3 : 12;
  const executor = (variant: Variant) =>
    new InProcessExecutor({ tools: [slow], model: clocked[variant], dispatch: { mode: 'parallel' } });
  const executors = { midStream: executor('midStream'), atStreamEnd: executor('atStreamEnd') };

  const temporal = await openBenchTemporal(log);
  /** Per trial name, the times of each run (warm-up runs included, dropped below). */
  const times = new Map<TrialName, TurnTimes[]>();
  try {
    const worker = await createTurnWorker({
      connection: temporal.native,
      namespace: temporal.namespace,
      taskQueue: TASK_QUEUE,
      tools: [slow],
      models: [clocked.midStream, clocked.atStreamEnd],
    });
    const running = startWorker(worker);
    const client = new TurnClient({
      connection: temporal.connection,
      namespace: temporal.namespace,
      taskQueue: TASK_QUEUE,
    });
    const trial = (on: Executor, variant: Variant) => (): Trial => {
      const name: TrialName = `${on}_${variant}`;
      const turnId = `${name}-${++turnSeq}`;
      scripted[variant].requests.splice(0);
      let result: TurnResult | undefined;
      return {
        run: async () => {
          result =
            on === 'inProcess'
              ? await executors[variant].runTurn({ turnId, input: 'go' })
              : await (
                  await client.start({ turnId, input: 'go', model: variant, dispatch: { mode: 'parallel' } })
                ).result();
        },
        verify: () => {
          verifyResult(turnId, result);
          scripted[variant].assertConsumed(turnId);
          times.set(name, [...(times.get(name) ?? []), turnTimes(turnId)]);
        },
      };
    };
    try {
      await measureRounds({
        trials: {
          inProcess_midStream: trial('inProcess', 'midStream'),
          inProcess_atStreamEnd: trial('inProcess', 'atStreamEnd'),
          temporal_midStream: trial('temporal', 'midStream'),
          temporal_atStreamEnd: trial('temporal', 'atStreamEnd'),
        },
        warmup,
        runs,
        onProgress: (m) => log(`streaming: ${m}`),
      });
    } finally {
      await running.stop();
    }
  } finally {
    await temporal.close();
  }

  const measured = (name: TrialName) => (times.get(name) ?? []).slice(warmup);
  const phaseEnd = (name: TrialName) => sampleMs(summarize(measured(name).map((t) => t.toolPhaseEndMs)));
  const latency = (name: TrialName) => {
    const values = measured(name).flatMap((t) => t.launchLatencyMs);
    return {
      calls: values.length,
      medianMs: round(percentile(values, 50)),
      p95Ms: round(percentile(values, 95)),
    };
  };
  const executorReport = (on: Executor) => {
    const mid = phaseEnd(`${on}_midStream`);
    const end = phaseEnd(`${on}_atStreamEnd`);
    const savedMs = end.median - mid.median;
    return {
      toolPhaseEndMs: { midStream: mid, atStreamEnd: end },
      savedMs: round(savedMs),
      /** Mid-stream launch's tool phase over the ideal 1,200 ms. */
      midStreamOverIdeal: round(mid.median / EXPECTED.midStreamMs),
      meetsTarget: savedMs >= MIN_SAVING_MS,
    };
  };
  const temporalLatency = latency('temporal_midStream');
  check(
    temporalLatency.calls >= MIN_LATENCY_SAMPLES || quick,
    `${temporalLatency.calls} latency samples, need ${MIN_LATENCY_SAMPLES}`,
  );
  const inProcess = executorReport('inProcess');
  const onTemporal = executorReport('temporal');
  await writeReport(quick ? 'streaming.partial.json' : 'streaming.json', {
    machine: machineInfo(loadBefore),
    setup:
      'temporal server start-dev (embedded, throwaway state), headless, started by this run; one createTurnWorker in the bench process (defaults)',
    quick,
    warmup,
    runs,
    script: {
      callsCompleteAtMs: CALLS_AT,
      streamEndsAtMs: STREAM_END_AT,
      toolMs: TOOL_MS,
      atStreamEndVariant:
        'the same three calls, all complete at 1,000 ms (delivered with the end of the stream)',
      dispatch: 'parallel (default maxConcurrency 8), tools concurrency-safe',
    },
    method:
      'tool phase end = last tool end (timestamped in execute) minus the first read of the model stream (wrapped model), medians over interleaved runs after warm-up; launch latency = tool start minus the moment the model yielded that tool-call part',
    expected: EXPECTED,
    minSavingMs: MIN_SAVING_MS,
    inProcess,
    temporal: onTemporal,
    launchLatency: {
      temporal: {
        ...temporalLatency,
        targetMedianMs: LATENCY_TARGET_MEDIAN_MS,
        meetsTarget: temporalLatency.medianMs <= LATENCY_TARGET_MEDIAN_MS,
      },
      inProcess: latency('inProcess_midStream'),
    },
    meetsTargets: {
      inProcessSaving: inProcess.meetsTarget,
      temporalSaving: onTemporal.meetsTarget,
      temporalLaunchLatency: temporalLatency.medianMs <= LATENCY_TARGET_MEDIAN_MS,
    },
  });
}

runBench(main);

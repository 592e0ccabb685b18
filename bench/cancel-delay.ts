import { defineTool, scriptedModel } from 'durable-turns';
import { TurnClient } from 'durable-turns/client';
import { createTurnWorker, heartbeatThrottleMs } from 'durable-turns/worker';
import { z } from 'zod';
import { heartbeatCadenceMs } from '../activities/create-activities';
import { round, summarize } from './measure';
import { type BenchTemporal, startWorker } from './temporal-env';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * How long a turn's cancel takes to reach a running tool on Temporal: from `cancel()` to the
 * tool's signal firing. It travels through a workflow task and a heartbeat response; the worker
 * throttles heartbeats to `heartbeatThrottleMs` and activities heartbeat every
 * `heartbeatCadenceMs`, so the target is about a second (DESIGN: "promptly, about a second").
 */
export async function measureCancelDelay({
  temporal,
  runs,
  log,
}: {
  temporal: BenchTemporal;
  runs: number;
  log: (message: string) => void;
}) {
  const aborted = new Map<string, number>();
  const running = new Set<string>();
  const waits = defineTool({
    name: 'waits',
    description: 'Runs until cancelled',
    input: z.object({}),
    execute: (_args, ctx) =>
      new Promise<string>((_resolve, reject) => {
        running.add(ctx.turnId);
        ctx.signal.addEventListener(
          'abort',
          () => {
            aborted.set(ctx.turnId, performance.now());
            reject(new Error('stopped by the cancel'));
          },
          { once: true },
        );
      }),
  });
  const taskQueue = 'bench-cancel-delay';
  const worker = await createTurnWorker({
    connection: temporal.native,
    namespace: temporal.namespace,
    taskQueue,
    tools: [waits],
    models: [
      scriptedModel(
        [{ toolCalls: [{ id: 'w', name: 'waits', args: {} }] }, { text: 'never' }],
        'cancel-delay',
      ),
    ],
  });
  const stop = startWorker(worker).stop;
  const client = new TurnClient({
    connection: temporal.connection,
    namespace: temporal.namespace,
    taskQueue,
  });
  const delays: number[] = [];
  try {
    for (let run = 0; run < runs; run++) {
      const turnId = `cancel-delay-${Date.now().toString(36)}-${run}`;
      const turn = await client.start({ turnId, input: 'go', model: 'cancel-delay' });
      while (!running.has(turnId)) await sleep(10);
      // A little past the throttle window, so each run cancels at a different point of it.
      await sleep(heartbeatThrottleMs + ((run * 97) % heartbeatThrottleMs));
      const cancelledAt = performance.now();
      await turn.cancel();
      const result = await turn.result();
      const at = aborted.get(turnId);
      if (result.status !== 'cancelled' || at === undefined)
        throw new Error(
          `cancel-delay run ${run}: the turn ended ${result.status} without its tool seeing the cancel`,
        );
      delays.push(at - cancelledAt);
    }
  } finally {
    await stop();
  }
  const sample = summarize(delays);
  log(
    `cancel delay: median ${round(sample.medianMs, 0)} ms, max ${round(sample.maxMs, 0)} ms over ${runs} runs`,
  );
  return {
    runs,
    delayMs: { median: round(sample.medianMs, 0), max: round(sample.maxMs, 0), min: round(sample.minMs, 0) },
    settings: { heartbeatThrottleMs, heartbeatCadenceMs },
    targetMs: 1_000,
    meetsTarget: sample.maxMs <= 1_000,
  };
}

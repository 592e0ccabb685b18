/**
 * What background calls buy: a turn with one slow background tool (SLOW_MS) and three ordinary
 * tools (FAST_MS each) across several model responses, in process and on Temporal, against two
 * baselines run in the same rounds: `rest` (the same turn without the slow call) and `blocking`
 * (the slow call as an ordinary one, which holds the next request until it ends).
 * `npx tsx bench/background-calls.ts` → bench/results/background-calls.json.
 *
 * Target: the background turn ≤ 1.2 × max(SLOW_MS, rest) — the slow call overlaps the rest
 * instead of adding to it (the blocking turn is the sum).
 */
import { loadavg } from 'node:os';
import { defineTool, InProcessExecutor, scriptedModel, type TurnResult } from 'durable-turns';
import { TurnClient } from 'durable-turns/client';
import { createTurnWorker } from 'durable-turns/worker';
import { z } from 'zod';
import {
  check,
  machineInfo,
  measureRounds,
  round,
  runBench,
  sampleMs,
  summarize,
  writeReport,
} from './measure';
import { openBenchTemporal, startWorker } from './temporal-env';

const SLOW_MS = 3_000;
const FAST_MS = 100;
export const TARGET_RATIO = 1.2;
const log = (message: string) => console.error(`[background] ${message}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Variant = 'background' | 'blocking' | 'rest';

const slow = (background: boolean) =>
  defineTool({
    name: background ? 'slow_background' : 'slow_blocking',
    description: 'Takes a while',
    input: z.object({}),
    concurrencySafe: true,
    background,
    execute: async (_args, ctx) => {
      const end = Date.now() + SLOW_MS;
      while (Date.now() < end) {
        ctx.heartbeat();
        await sleep(Math.min(250, end - Date.now()));
      }
      return 'slow done';
    },
  });
const fast = defineTool({
  name: 'fast',
  description: 'Quick',
  input: z.object({ i: z.number() }),
  concurrencySafe: true,
  execute: async ({ i }) => {
    await sleep(FAST_MS);
    return `fast ${i} done`;
  },
});
const tools = [slow(true), slow(false), fast];

/** Response 0 starts the slow call beside the first fast one; two more responses each run one fast call. */
function script(variant: Variant) {
  const slowCall =
    variant === 'rest'
      ? []
      : [{ id: 's', name: variant === 'background' ? 'slow_background' : 'slow_blocking', args: {} }];
  return scriptedModel(
    [
      { toolCalls: [...slowCall, { id: 'f0', name: 'fast', args: { i: 0 } }] },
      { toolCalls: [{ id: 'f1', name: 'fast', args: { i: 1 } }] },
      { toolCalls: [{ id: 'f2', name: 'fast', args: { i: 2 } }] },
      // The background variant: the model is done while the slow call runs; the turn waits, then asks once more.
      { text: variant === 'background' ? 'waiting for the slow call' : 'done' },
      { text: 'done' },
    ],
    variant,
  );
}

function verified(result: TurnResult, variant: Variant): void {
  check(result.status === 'completed', `${variant} turn completed (${result.status})`);
  check(result.outputs.length === (variant === 'rest' ? 3 : 4), `${variant}: every call has an output`);
  if (variant === 'background')
    check(
      result.events.some((e) => e.type === 'background.delivered'),
      'the slow call was delivered from the background',
    );
}

async function measure(runTurn: (variant: Variant) => Promise<TurnResult>) {
  const trial = (variant: Variant) => () => {
    let result: TurnResult | undefined;
    return {
      run: async () => {
        result = await runTurn(variant);
      },
      verify: () => verified(result as TurnResult, variant),
    };
  };
  const rounds = await measureRounds({
    trials: { background: trial('background'), blocking: trial('blocking'), rest: trial('rest') },
    swapped: [['background', 'blocking']],
    warmup: 1,
    runs: Number(process.env.BENCH_RUNS ?? 5),
    onProgress: log,
  });
  const wall = (name: Variant) => summarize(rounds.map((r) => r[name].wallMs));
  // Paired within each round: the background turn against the longer of the slow call and the rest.
  const ratio = summarize(rounds.map((r) => r.background.wallMs / Math.max(SLOW_MS, r.rest.wallMs))).medianMs;
  const blockingRatio = summarize(
    rounds.map((r) => r.blocking.wallMs / Math.max(SLOW_MS, r.rest.wallMs)),
  ).medianMs;
  return {
    background: sampleMs(wall('background')),
    blocking: sampleMs(wall('blocking')),
    rest: sampleMs(wall('rest')),
    backgroundOverMaxOfSlowAndRest: round(ratio),
    blockingOverMaxOfSlowAndRest: round(blockingRatio),
    meetsTarget: ratio <= TARGET_RATIO,
  };
}

async function main() {
  const loadBefore = loadavg()[0] ?? 0;
  let turns = 0;
  const models = (['background', 'blocking', 'rest'] as const).map(script);

  log('in process');
  const inProcess = await measure(async (variant) => {
    turns += 1;
    const executor = new InProcessExecutor({
      tools,
      model: models.find((m) => m.name === variant) ?? script(variant),
    });
    return executor.runTurn({ turnId: `bg-${variant}-${turns}`, input: 'go' });
  });

  log('on Temporal');
  const bench = await openBenchTemporal(log);
  const taskQueue = 'background-calls';
  const worker = await createTurnWorker({
    connection: bench.native,
    namespace: bench.namespace,
    taskQueue,
    tools,
    models,
    fleetHealth: false,
  });
  const running = startWorker(worker);
  const client = new TurnClient({ connection: bench.connection, namespace: bench.namespace, taskQueue });
  const onTemporal = await measure(async (variant) => {
    turns += 1;
    const handle = await client.start({ turnId: `bg-${variant}-${turns}`, input: 'go', model: variant });
    return handle.result();
  });
  await running.stop();
  await bench.close();

  const report = {
    benchmark: 'background-calls',
    machine: machineInfo(loadBefore),
    serverSettings: bench.serverSettings,
    slowMs: SLOW_MS,
    fastMs: FAST_MS,
    targetRatio: TARGET_RATIO,
    inProcess,
    temporal: onTemporal,
  };
  await writeReport('background-calls.json', report);
}

runBench(main);

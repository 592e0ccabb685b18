/**
 * What encryption costs on Temporal: the same turns with the payload codec on and off, on one dev
 * server, alternating round by round (`measureRounds`, swapped pairs), and the history bytes each
 * leaves. `npx tsx bench/encryption-overhead.ts` → bench/results/encryption.json.
 *
 * - `sequential`: a turn of SEQUENTIAL_CALLS no-op calls one after another (per-call overhead);
 * - `wave`: a turn of one wave of WAVE_CALLS concurrency-safe no-op calls;
 * - history bytes of each, and of a turn whose tool returns BIG_OUTPUT_BYTES of JSON with and
 *   without deflate before encryption (does compression pay?).
 * Target: codec on ≤ 10 % over codec off per call, in both cases.
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { temporal } from '@temporalio/proto';
import { defineTool, scriptedModel } from 'durable-turns';
import { TurnClient } from 'durable-turns/client';
import { type EncryptionCodecOptions, parseEncryptionKeys } from 'durable-turns/codec';
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
import { ExecutionCounter, noopCalls, noopTool } from './noop';
import { openBenchTemporal, startWorker } from './temporal-env';

const SEQUENTIAL_CALLS = 10;
const WAVE_CALLS = 8;
const BIG_OUTPUT_BYTES = 64 * 1024;
export const TARGET_OVERHEAD_PERCENT = 10;
const log = (message: string) => console.error(`[encryption] ${message}`);

type Codec = 'off' | 'on' | 'onNoDeflate';

async function main() {
  const loadBefore = loadavg()[0] ?? 0;
  const bench = await openBenchTemporal(log);
  const keys = parseEncryptionKeys(`k0:${randomBytes(32).toString('base64')}`);
  const encryptionOf: Record<Codec, EncryptionCodecOptions | false> = {
    off: false,
    on: { keys },
    onNoDeflate: { keys, compressAbove: false },
  };
  const counter = new ExecutionCounter();
  const big = defineTool({
    name: 'big',
    description: 'Answers a large JSON document',
    input: z.object({}),
    execute: () => ({
      rows: Array.from({ length: BIG_OUTPUT_BYTES / 64 }, (_, i) => ({
        id: i,
        name: `customer ${i}`,
        tier: 'gold',
      })),
    }),
  });
  const models = [
    scriptedModel(
      [
        // Distinct arguments each time: the same call again and again is a loop the turn would stop.
        ...Array.from({ length: SEQUENTIAL_CALLS }, (_, i) => ({
          toolCalls: [{ id: `s${i}`, name: 'noop', args: { i } }],
        })),
        { text: 'done' },
      ],
      'sequential',
    ),
    scriptedModel([{ toolCalls: noopCalls(WAVE_CALLS, 'w') }, { text: 'done' }], 'wave'),
    scriptedModel([{ toolCalls: [{ id: 'b1', name: 'big', args: {} }] }, { text: 'done' }], 'big'),
  ];
  const codecs: Codec[] = ['off', 'on', 'onNoDeflate'];
  const workers = await Promise.all(
    codecs.map(async (codec) => {
      const taskQueue = `encryption-${codec}`;
      const worker = await createTurnWorker({
        connection: bench.native,
        namespace: bench.namespace,
        taskQueue,
        tools: [noopTool(counter), big],
        models,
        encryption: encryptionOf[codec],
        fleetHealth: false,
      });
      const client = new TurnClient({
        connection: bench.connection,
        namespace: bench.namespace,
        taskQueue,
        encryption: encryptionOf[codec],
      });
      return { codec, running: startWorker(worker), client };
    }),
  );
  const clientOf = (codec: Codec) => workers.find((w) => w.codec === codec)?.client as TurnClient;
  let turns = 0;
  const historyBytes = async (turnId: string) => {
    const history = await bench.connection.workflowService.getWorkflowExecutionHistory({
      namespace: bench.namespace,
      execution: { workflowId: turnId },
      maximumPageSize: 10_000,
    });
    return temporal.api.history.v1.History.encode(history.history ?? {}).finish().length;
  };
  const runTurn = async (codec: Codec, model: string) => {
    turns += 1;
    const turnId = `enc-${codec}-${model}-${turns}`;
    const handle = await clientOf(codec).start({ turnId, input: 'go', model });
    const result = await handle.result();
    check(result.status === 'completed', `${turnId} completed (${result.status})`);
    return turnId;
  };
  const trial = (codec: Codec, model: 'sequential' | 'wave') => () => {
    const before = counter.count;
    return {
      run: async () => {
        await runTurn(codec, model);
      },
      verify: () =>
        check(
          counter.count - before === (model === 'wave' ? WAVE_CALLS : SEQUENTIAL_CALLS),
          'every call ran',
        ),
    };
  };
  const rounds = await measureRounds({
    trials: {
      seqOff: trial('off', 'sequential'),
      seqOn: trial('on', 'sequential'),
      waveOff: trial('off', 'wave'),
      waveOn: trial('on', 'wave'),
    },
    swapped: [
      ['seqOff', 'seqOn'],
      ['waveOff', 'waveOn'],
    ],
    warmup: 2,
    runs: Number(process.env.BENCH_RUNS ?? 12),
    onProgress: log,
  });
  const wall = (name: keyof (typeof rounds)[number]) => summarize(rounds.map((r) => r[name].wallMs));
  const ratio = (on: keyof (typeof rounds)[number], off: keyof (typeof rounds)[number]) =>
    summarize(rounds.map((r) => r[on].wallMs / r[off].wallMs)).medianMs;
  const sequentialRatio = ratio('seqOn', 'seqOff');
  const waveRatio = ratio('waveOn', 'waveOff');
  const perCall = (name: 'seqOn' | 'seqOff') => round(wall(name).medianMs / SEQUENTIAL_CALLS);

  const bytes: Record<string, Record<Codec, number>> = {};
  for (const model of ['sequential', 'wave', 'big'] as const) {
    bytes[model] = { off: 0, on: 0, onNoDeflate: 0 };
    for (const codec of codecs) bytes[model][codec] = await historyBytes(await runTurn(codec, model));
  }
  await Promise.all(workers.map((w) => w.running.stop()));
  await bench.close();

  const report = {
    benchmark: 'encryption-overhead',
    machine: machineInfo(loadBefore),
    targetOverheadPercent: TARGET_OVERHEAD_PERCENT,
    sequential: {
      calls: SEQUENTIAL_CALLS,
      off: sampleMs(wall('seqOff')),
      on: sampleMs(wall('seqOn')),
      perCallMs: { off: perCall('seqOff'), on: perCall('seqOn') },
      ratioOnToOff: round(sequentialRatio),
      meetsTarget: sequentialRatio <= 1 + TARGET_OVERHEAD_PERCENT / 100,
    },
    wave: {
      calls: WAVE_CALLS,
      off: sampleMs(wall('waveOff')),
      on: sampleMs(wall('waveOn')),
      ratioOnToOff: round(waveRatio),
      meetsTarget: waveRatio <= 1 + TARGET_OVERHEAD_PERCENT / 100,
    },
    historyBytes: {
      ...bytes,
      bigOutputBytes: BIG_OUTPUT_BYTES,
      deflatePays: (bytes.big?.on ?? 0) < (bytes.big?.onNoDeflate ?? 0),
    },
  };
  await writeReport('encryption.json', report);
}

runBench(main);

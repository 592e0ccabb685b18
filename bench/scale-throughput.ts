/**
 * Part A of bench/scale.ts: many concurrent turns of parallel waves on one turn worker, against the
 * hand-written floor of the same shape on a plain worker, in alternating rounds of the same run.
 * Each worker is a process of its own, so its RSS is the worker's: RSS per open turn = (peak
 * during a run − the idle worker's after warm-up) / turns open at once.
 */
import type { TurnClient } from 'durable-turns/client';
import { check, round, sampleMs, summarize } from './measure';
import { verifyTurns } from './noop';
import { kib, mib, type RssReading, restingRss, sampleRss } from './rss-sampler';
import type { ScaleWorkerProcess } from './scale-worker-process';
import { scaleModels, type WorkerStats } from './scale-worker-protocol';
import { type BenchTemporal, cpuMeter, serverSettled } from './temporal-env';
import type { waveFloorWorkflow } from './wave-floor-workflow';

export interface ThroughputOptions {
  temporal: BenchTemporal;
  client: TurnClient;
  turnWorker: ScaleWorkerProcess;
  floorWorker: ScaleWorkerProcess;
  floorQueue: string;
  turns: number;
  rounds: number;
  width: number;
  /** Measured rounds (each runs ours and the floor once, the order alternating). */
  runs: number;
  warmupTurns: number;
  log: (message: string) => void;
}

type Kind = 'ours' | 'floor';

interface Run {
  wallMs: number;
  rss: RssReading;
  cpu: ReturnType<ReturnType<typeof cpuMeter>['stop']>;
  after: WorkerStats;
}

let seq = 0;
const ids = (label: string, count: number) => Array.from({ length: count }, () => `${label}-${++seq}`);

export async function measureThroughput(o: ThroughputOptions) {
  const callsPerTurn = o.rounds * o.width;
  const responses = o.rounds + 1;
  const workerOf = (kind: Kind) => (kind === 'ours' ? o.turnWorker : o.floorWorker);

  /** Starts `count` workflows of the kind together and waits for every one; returns their check. */
  const launch = async (kind: Kind, count: number): Promise<() => void> => {
    if (kind === 'ours') {
      const turnIds = ids('scale', count);
      const handles = await Promise.all(
        turnIds.map((turnId) => o.client.start({ turnId, input: 'go', model: scaleModels.waves })),
      );
      const results = await Promise.all(handles.map((h) => h.result()));
      return () => {
        verifyTurns(results, turnIds, { calls: callsPerTurn, responses });
      };
    }
    const handles = await Promise.all(
      ids('floor', count).map((workflowId) =>
        o.client.client.workflow.start<typeof waveFloorWorkflow>('waveFloorWorkflow', {
          workflowId,
          taskQueue: o.floorQueue,
          args: [o.rounds, o.width],
        }),
      ),
    );
    const answers = await Promise.all(handles.map((h) => h.result()));
    return () =>
      check(
        answers.length === count && answers.every((ok) => ok === callsPerTurn),
        `floor: every workflow's ${callsPerTurn} calls answered ok`,
      );
  };

  /** Every workflow's own check, and the executions the worker process counted meanwhile. */
  const verify = (kind: Kind, count: number, before: WorkerStats, after: WorkerStats, each: () => void) => {
    each();
    const ran = after.executions.tools - before.executions.tools;
    const asked = after.executions.models - before.executions.models;
    check(ran === count * callsPerTurn, `${kind}: ${ran} of ${count * callsPerTurn} tool executions`);
    check(asked === count * responses, `${kind}: ${asked} of ${count * responses} model requests`);
  };

  /** Untimed: warm-up. */
  const batch = async (kind: Kind, count: number) => {
    const before = await workerOf(kind).stats();
    const each = await launch(kind, count);
    verify(kind, count, before, await workerOf(kind).stats(), each);
  };

  /** One timed run: the worker process's RSS sampled every 100 ms and the cores each process kept busy. */
  const timedRun = async (kind: Kind): Promise<Run> => {
    const worker = workerOf(kind);
    await serverSettled(o.temporal.serverPid, { belowCores: 0.1 });
    const before = await worker.stats();
    const rss = sampleRss(worker.pid);
    const cpu = cpuMeter(o.temporal.serverPid, worker.pid);
    const started = performance.now();
    const each = await launch(kind, o.turns);
    const wallMs = performance.now() - started;
    const run = { wallMs, cpu: cpu.stop(), rss: rss.stop(), after: await worker.stats() };
    verify(kind, o.turns, before, run.after, each);
    return run;
  };

  o.log(`throughput: warm-up, ${o.warmupTurns} of each`);
  await batch('ours', o.warmupTurns);
  await batch('floor', o.warmupTurns);
  await serverSettled(o.temporal.serverPid, { belowCores: 0.1 });
  const idle = {
    ours: { rss: await restingRss(o.turnWorker.pid), stats: await o.turnWorker.stats() },
    floor: { rss: await restingRss(o.floorWorker.pid), stats: await o.floorWorker.stats() },
  };

  const runs: Record<Kind, Run[]> = { ours: [], floor: [] };
  for (let r = 0; r < o.runs; r++) {
    const order: Kind[] = r % 2 === 0 ? ['floor', 'ours'] : ['ours', 'floor'];
    for (const kind of order) {
      const run = await timedRun(kind);
      runs[kind].push(run);
      o.log(
        `throughput round ${r + 1}/${o.runs} ${kind}: ${run.wallMs.toFixed(0)} ms, peak RSS ${mib(run.rss.peakBytes)} MiB`,
      );
    }
  }

  const toolCalls = o.turns * callsPerTurn;
  const report = (kind: Kind) => {
    const kindRuns = runs[kind];
    const wall = summarize(kindRuns.map((r) => r.wallMs));
    const peak = summarize(kindRuns.map((r) => r.rss.peakBytes)).medianMs;
    const idleRss = idle[kind].rss.medianBytes;
    const meanOf = (f: (run: Run) => number | null | undefined) =>
      round(kindRuns.reduce((sum, run) => sum + (f(run) ?? Number.NaN), 0) / kindRuns.length, 2);
    return {
      wallMs: sampleMs(wall),
      toolCallsPerSecond: round(toolCalls / (wall.medianMs / 1_000), 1),
      turnsPerSecond: round(o.turns / (wall.medianMs / 1_000), 2),
      rss: {
        idleAfterWarmupMiB: mib(idleRss),
        peakMiB: mib(peak),
        peakByRunMiB: kindRuns.map((r) => mib(r.rss.peakBytes)),
        beforeRunMiB: kindRuns.map((r) => mib(r.rss.firstBytes)),
        perOpenTurnKiB: kib((peak - idleRss) / o.turns),
        heapUsedIdleMiB: mib(idle[kind].stats.memory.heapUsed),
        heapUsedAfterRunsMiB: kindRuns.map((r) => mib(r.after.memory.heapUsed)),
      },
      cores: {
        worker: meanOf((r) => r.cpu.workerCores),
        server: meanOf((r) => r.cpu.serverCores),
        benchClient: meanOf((r) => r.cpu.benchProcessCores),
        other: meanOf((r) => r.cpu.otherCores),
      },
      /** The runtime's sticky cache counters after the last run, cumulative over the worker process. */
      stickyCache: kindRuns.at(-1)?.after.stickyCache ?? null,
    };
  };
  /** Paired within each round, so a slow spell of the machine hits both sides of the ratio. */
  const ratio = summarize(runs.ours.map((run, i) => (runs.floor[i]?.wallMs ?? Number.NaN) / run.wallMs));
  return {
    turns: o.turns,
    turn: `${o.rounds} responses × ${o.width} concurrency-safe no-op calls, then text: ${responses} callModel + ${callsPerTurn} runTool activities; dispatch defaults (parallel, maxConcurrency 8)`,
    floorWorkflow: `bench/wave-floor-workflow.ts: ${o.rounds} × (a no-op "model" activity, then ${o.width} no-op activities at once), then a last "model" activity; a plain Worker (SDK defaults)`,
    toolCallsPerRun: toolCalls,
    method:
      'all workflows of a run started together (Promise.all of start), timed to the last result; ours and the floor alternate in each round (floor first in odd rounds), server settled before each; tool calls/s = turns × calls / wall; RSS of the worker process sampled from /proc every 100 ms; per open turn = (median peak − idle RSS after warm-up) / turns; every turn verified (completed, every output ok) and executions counted in the worker process; heapUsed is the main thread heap of the worker (activities): the workflows run on the SDK workflow thread, whose heap shows in the RSS only',
    warmupTurnsEach: o.warmupTurns,
    runs: o.runs,
    ours: report('ours'),
    floor: report('floor'),
    oursOverFloorRate: round(ratio.medianMs),
    oursOverFloorRateByRound: runs.ours.map((run, i) =>
      round((runs.floor[i]?.wallMs ?? Number.NaN) / run.wallMs),
    ),
  };
}

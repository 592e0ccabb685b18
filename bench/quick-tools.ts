/**
 * Per-call cost of a sequential turn on the embedded server's fast settings, against the
 * hand-written floors measured in the same rounds: ordinary tools against a workflow that awaits
 * a no-op activity N times, quick tools against the same loop over a no-op local activity. Each
 * cost is marginal — (N calls − 1 call) / (N − 1) — so the turn's own start and end drop out.
 * `npx tsx bench/quick-tools.ts` → bench/results/quick-tools.json.
 *
 * Targets (issue "per-call latency"): ordinary ≤ 1.15 × the activity floor, quick ≤ 1.2 × the
 * local-activity floor. The step tools are not concurrency-safe, so a turn's quick calls run in
 * chains (several in one local activity); the same calls one by one (`chainQuickCalls: false`,
 * one local activity each, as the floor) are reported beside them.
 */
import { loadavg } from 'node:os';
import { TurnClient } from 'durable-turns/client';
import { createTurnWorker } from 'durable-turns/worker';
import { CallStarts } from './call-starts';
import type { localFloorWorkflow } from './floor-workflow';
import {
  check,
  logger,
  machineInfo,
  measureRounds,
  medianInterval,
  round,
  runBench,
  summarize,
  writeReport,
} from './measure';
import { stepTool, stepTurn } from './step-tools';
import { openBenchTemporal, startFloorWorker, startWorker } from './temporal-env';

const CALLS = Number(process.env.BENCH_CALLS ?? 30);
export const PLAIN_TARGET = 1.15;
export const QUICK_TARGET = 1.2;
const WARMUP = 2;
type CycleTrial = 'floorN' | 'localFloorN' | 'plainN' | 'quickOneN';
const log = logger('quick');

let executions = 0;
const step = (quick: boolean) =>
  stepTool({
    quick,
    onRun: () => {
      executions += 1;
    },
  });

async function main() {
  const loadBefore = loadavg()[0] ?? 0;
  const bench = await openBenchTemporal(log);
  const calls = new CallStarts(new Set(['floorNoop', 'runTool']));
  const floorWorker = await startFloorWorker(bench, 'quick-floor', {
    interceptors: { activity: [calls.interceptor] },
  });
  const models = [1, CALLS].flatMap((n) => [stepTurn('step_plain', n), stepTurn('step_quick', n)]);
  const turnWorker = await createTurnWorker({
    connection: bench.native,
    namespace: bench.namespace,
    taskQueue: 'quick-turns',
    tools: [step(false), step(true)],
    models,
    fleetHealth: false,
    worker: { interceptors: { activity: [calls.interceptor] } },
  });
  const running = [floorWorker, startWorker(turnWorker)];
  const client = new TurnClient({
    connection: bench.connection,
    namespace: bench.namespace,
    taskQueue: 'quick-turns',
  });
  let ids = 0;
  /** Each N-call run's mean cycle (CallStarts) by trial, in run order: one a round, warm-up first. */
  const cycles: Record<CycleTrial, number[]> = { floorN: [], localFloorN: [], plainN: [], quickOneN: [] };
  const cycleOf = (trial: CycleTrial | undefined, workflowId: string) => {
    const mean = calls.meanCycleMs(workflowId);
    if (trial && mean !== undefined) cycles[trial].push(mean);
  };
  const floor = (workflow: 'floorWorkflow' | 'localFloorWorkflow', n: number, trial?: CycleTrial) => () => {
    let answered = 0;
    let workflowId = '';
    return {
      run: async () => {
        ids += 1;
        workflowId = `${workflow}-${ids}`;
        answered = await client.client.workflow.execute<typeof localFloorWorkflow>(workflow, {
          workflowId,
          taskQueue: 'quick-floor',
          args: [n],
        });
      },
      verify: () => {
        check(answered === n, `${workflow}: ${n} calls answered`);
        cycleOf(trial, workflowId);
      },
    };
  };
  /** Our turn of `n` calls; `oneByOne`: quick calls each in a local activity of their own (no chains). */
  const ours =
    (name: 'step_quick' | 'step_plain', n: number, trial?: CycleTrial, oneByOne = false) =>
    () => {
      const before = executions;
      let turnId = '';
      return {
        run: async () => {
          ids += 1;
          turnId = `${name}-${ids}`;
          const turn = await client.start({
            turnId,
            input: 'go',
            model: `${name}-${n}`,
            ...(oneByOne ? { dispatch: { chainQuickCalls: false } } : {}),
          });
          const result = await turn.result();
          check(result.status === 'completed', `${name}: turn completed (${result.status})`);
        },
        verify: () => {
          check(executions - before === n, `${name}: ${n} calls ran`);
          cycleOf(trial, turnId);
        },
      };
    };
  const rounds = await measureRounds({
    trials: {
      floor1: floor('floorWorkflow', 1),
      floorN: floor('floorWorkflow', CALLS, 'floorN'),
      localFloor1: floor('localFloorWorkflow', 1),
      localFloorN: floor('localFloorWorkflow', CALLS, 'localFloorN'),
      plain1: ours('step_plain', 1),
      plainN: ours('step_plain', CALLS, 'plainN'),
      quick1: ours('step_quick', 1),
      quickN: ours('step_quick', CALLS),
      quickOne1: ours('step_quick', 1, undefined, true),
      quickOneN: ours('step_quick', CALLS, 'quickOneN', true),
    },
    swapped: [
      ['floorN', 'plainN'],
      ['localFloorN', 'quickN'],
    ],
    warmup: WARMUP,
    runs: Number(process.env.BENCH_RUNS ?? 10),
    onProgress: log,
  });
  await Promise.all(running.map((r) => r.stop()));
  await bench.close();

  type Name = keyof (typeof rounds)[number];
  /** Median over rounds of the marginal per-call cost, (N − 1) calls apart. */
  const perCall = (n: Name, one: Name) =>
    summarize(rounds.map((r) => (r[n].wallMs - r[one].wallMs) / (CALLS - 1))).medianMs;
  /** Each round's ratio of two marginal costs, paired within the round. */
  const ratios = (n: Name, one: Name, floorN: Name, floor1: Name) =>
    rounds.map((r) => (r[n].wallMs - r[one].wallMs) / (r[floorN].wallMs - r[floor1].wallMs));
  const plainRatios = ratios('plainN', 'plain1', 'floorN', 'floor1');
  const quickRatios = ratios('quickN', 'quick1', 'localFloorN', 'localFloor1');
  const quickOneRatios = ratios('quickOneN', 'quickOne1', 'localFloorN', 'localFloor1');
  const plainOverPlainFloor = summarize(plainRatios).medianMs;
  const quickOverLocalFloor = summarize(quickRatios).medianMs;
  const interval = (values: readonly number[]) => {
    const { low, high } = medianInterval(values);
    return { low: round(low), high: round(high) };
  };
  // The calls alone: each round's mean cycle of the N-call runs (warm-up rounds left out), paired.
  const kept = (trial: CycleTrial) => cycles[trial].slice(WARMUP);
  const cycleRatios = (trial: CycleTrial, floorTrial: CycleTrial) => {
    const floors = kept(floorTrial);
    return kept(trial).map((mean, i) => mean / (floors[i] ?? Number.NaN));
  };
  const plainCycleRatios = cycleRatios('plainN', 'floorN');
  const quickCycleRatios = cycleRatios('quickOneN', 'localFloorN');
  const cycleMs = (trial: CycleTrial) => round(summarize(kept(trial)).medianMs);
  await writeReport('quick-tools.json', {
    benchmark: 'quick-tools',
    machine: machineInfo(loadBefore),
    serverSettings: bench.serverSettings,
    calls: CALLS,
    msPerCall: {
      activityFloor: round(perCall('floorN', 'floor1')),
      localActivityFloor: round(perCall('localFloorN', 'localFloor1')),
      ordinaryTool: round(perCall('plainN', 'plain1')),
      quickTool: round(perCall('quickN', 'quick1')),
      quickToolOneByOne: round(perCall('quickOneN', 'quickOne1')),
    },
    plainOverPlainFloor: round(plainOverPlainFloor),
    /** Quick calls as a turn runs them: those that must run one after another run in chains. */
    quickOverLocalFloor: round(quickOverLocalFloor),
    /** The same calls each in a local activity of its own (`dispatch.chainQuickCalls: false`). */
    quickOneByOneOverLocalFloor: round(summarize(quickOneRatios).medianMs),
    /** 90 % bootstrap intervals of the medians over this run's rounds (see median-interval.ts). */
    intervals: {
      plainOverPlainFloor: interval(plainRatios),
      quickOverLocalFloor: interval(quickRatios),
      quickOneByOneOverLocalFloor: interval(quickOneRatios),
    },
    meetsTargets: { plain: plainOverPlainFloor <= PLAIN_TARGET, quick: quickOverLocalFloor <= QUICK_TARGET },
    /**
     * The calls without the turn's start and end (CallStarts): the mean time from one tool call's
     * start to the next in each N-call run, median over rounds, and each round's ratio of ours to
     * its floor; for quick calls one by one (a chain's calls do not start activities). Not the target's measure — the marginal cost above also counts what grows at the
     * turn's end with its calls (the last request reads every output, the result packs every event).
     */
    cycle: {
      msPerCall: {
        activityFloor: cycleMs('floorN'),
        localActivityFloor: cycleMs('localFloorN'),
        ordinaryTool: cycleMs('plainN'),
        quickToolOneByOne: cycleMs('quickOneN'),
      },
      plainOverPlainFloor: round(summarize(plainCycleRatios).medianMs),
      quickOneByOneOverLocalFloor: round(summarize(quickCycleRatios).medianMs),
      intervals: {
        plainOverPlainFloor: interval(plainCycleRatios),
        quickOneByOneOverLocalFloor: interval(quickCycleRatios),
      },
    },
  });
}

runBench(main);

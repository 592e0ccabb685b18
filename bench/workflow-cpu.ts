/**
 * The workflow's own CPU per tool call, without the server's dispatch in the number: a turn of N
 * sequential calls (quick and ordinary) runs once on the bench server, then its history is
 * replayed — the same workflow code, on the same events, no server — with the bundle as workers
 * build it and with built-ins left as global reads (`bindIntrinsics: false`), interleaved. Marginal
 * cost per call: (replay of N calls − replay of 1 call) / (N − 1).
 * `npx tsx bench/workflow-cpu.ts` → bench/results/workflow-cpu.json.
 */

import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { TurnClient } from 'durable-turns/client';
import { createTurnWorker, turnMetricsSinks } from 'durable-turns/worker';
import { turnWorkflowPreloadModules } from '../worker/turn-workflow-bundle';
import { turnWorkflowWebpackConfig } from '../worker/turn-workflow-webpack-config';
import {
  resolveWorkflowInterceptorModule,
  workflowInterceptorModuleIds,
} from '../worker/workflow-interceptor-modules';
import type { localFloorWorkflow } from './floor-workflow';
import { machineInfo, measureRounds, round, runBench, summarize, writeReport } from './measure';
import { type StepToolName, stepTool, stepTurn } from './step-tools';
import { openBenchTemporal, startWorker } from './temporal-env';

const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const floors = ['floorWorkflow', 'localFloorWorkflow'] as const;
const floorBundle = bundleWorkflowCode({
  workflowsPath: require.resolve('./floor-workflow'),
  logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} },
});
const log = (message: string) => console.error(`[workflow-cpu] ${message}`);
const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

const step = (quick: boolean) => stepTool({ quick });
const turnOf = (name: string, calls: number) => stepTurn(name as StepToolName, calls);

function bundle(bindIntrinsics: boolean) {
  return bundleWorkflowCode({
    workflowsPath: require.resolve('../workflows'),
    workflowInterceptorModules: workflowInterceptorModuleIds().map((id) =>
      resolveWorkflowInterceptorModule({ id }),
    ),
    webpackConfigHook: (config) => turnWorkflowWebpackConfig({ config, bindIntrinsics }),
    preloadModules: turnWorkflowPreloadModules(),
    logger: quiet,
  });
}

/** Runs each turn, and each floor workflow, once and keeps its history. */
async function recordHistories(names: readonly string[]) {
  const bench = await openBenchTemporal(log);
  try {
    const worker = await createTurnWorker({
      connection: bench.native,
      namespace: bench.namespace,
      taskQueue: 'workflow-cpu',
      tools: [step(false), step(true)],
      models: names.flatMap((name) => [turnOf(name, 1), turnOf(name, CALLS)]),
      fleetHealth: false,
    });
    const floorWorker = await Worker.create({
      connection: bench.native,
      namespace: bench.namespace,
      taskQueue: 'workflow-cpu-floor',
      workflowBundle: await floorBundle,
      activities: { floorNoop: async () => 'ok' },
    });
    const running = [startWorker(worker), startWorker(floorWorker)];
    const client = new TurnClient({
      connection: bench.connection,
      namespace: bench.namespace,
      taskQueue: 'workflow-cpu',
    });
    const histories: Record<string, temporal.api.history.v1.IHistory> = {};
    for (const calls of [1, CALLS]) {
      for (const name of names) {
        const turnId = `${name}-${calls}`;
        const turn = await client.start({ turnId, input: 'go', model: turnId });
        const result = await turn.result();
        if (result.status !== 'completed') throw new Error(`${turnId}: ${result.status}`);
        histories[turnId] = await client.client.workflow.getHandle(turnId).fetchHistory();
      }
      for (const workflow of floors) {
        const workflowId = `${workflow}-${calls}`;
        const answered = await client.client.workflow.execute<typeof localFloorWorkflow>(workflow, {
          workflowId,
          taskQueue: 'workflow-cpu-floor',
          args: [calls],
        });
        if (answered !== calls) throw new Error(`${workflowId}: ${answered} answered`);
        histories[workflowId] = await client.client.workflow.getHandle(workflowId).fetchHistory();
      }
    }
    await Promise.all(running.map((r) => r.stop()));
    return histories;
  } finally {
    await bench.close();
  }
}

async function main() {
  const loadBefore = loadavg()[0] ?? 0;
  const names = ['step_quick', 'step_plain'] as const;
  const histories = await recordHistories(names);
  if (process.env.BENCH_SAVE_HISTORIES)
    await writeFile(
      process.env.BENCH_SAVE_HISTORIES,
      JSON.stringify(
        Object.fromEntries(
          Object.entries(histories).map(([id, h]) => [
            id,
            Buffer.from(temporal.api.history.v1.History.encode(h).finish()).toString('base64'),
          ]),
        ),
      ),
    );
  const bundles = { bound: await bundle(true), global: await bundle(false), floor: await floorBundle };
  const replay = (which: keyof typeof bundles, workflowId: string) => () => ({
    run: async () => {
      const history = histories[workflowId];
      if (!history) throw new Error(`no history for ${workflowId}`);
      await Worker.runReplayHistory(
        { workflowBundle: bundles[which], sinks: turnMetricsSinks({}) },
        history,
        workflowId,
      );
    },
    // Replay throws on any mismatch: a run that returns replayed the whole workflow.
    verify: () => {},
  });
  /** Each subject replayed at 1 call and at CALLS calls, to take the marginal cost. */
  const subjects = {
    quick: ['bound', 'step_quick'],
    quickGlobalReads: ['global', 'step_quick'],
    plain: ['bound', 'step_plain'],
    plainGlobalReads: ['global', 'step_plain'],
    localFloor: ['floor', 'localFloorWorkflow'],
    activityFloor: ['floor', 'floorWorkflow'],
  } as const satisfies Record<string, readonly [keyof typeof bundles, string]>;
  type Subject = keyof typeof subjects;
  const trials = Object.fromEntries(
    (Object.entries(subjects) as [Subject, (typeof subjects)[Subject]][]).flatMap(
      ([subject, [which, id]]) => [
        [`${subject}:1`, replay(which, `${id}-1`)],
        [`${subject}:N`, replay(which, `${id}-${CALLS}`)],
      ],
    ),
  );
  const rounds = await measureRounds({
    trials,
    warmup: 1,
    runs: Number(process.env.BENCH_RUNS ?? 7),
    onProgress: log,
  });
  /** Per round, the marginal CPU of one call of a subject. */
  const marginal = (subject: Subject) =>
    rounds.map((r) => {
      const n = r[`${subject}:N`];
      const one = r[`${subject}:1`];
      if (!n || !one) throw new Error(`missing trial ${subject}`);
      return (n.cpuMs - one.cpuMs) / (CALLS - 1);
    });
  const median = (values: number[]) => round(summarize(values).medianMs);
  const ratio = (subject: Subject, floor: Subject) => {
    const floorValues = marginal(floor);
    return median(marginal(subject).map((v, i) => v / (floorValues[i] ?? Number.NaN)));
  };
  await writeReport('workflow-cpu.json', {
    benchmark: 'workflow-cpu',
    machine: machineInfo(loadBefore),
    calls: CALLS,
    cpuMsPerCall: Object.fromEntries(
      (Object.keys(subjects) as Subject[]).map((s) => [s, median(marginal(s))]),
    ),
    ratios: {
      quickOverLocalFloor: ratio('quick', 'localFloor'),
      plainOverActivityFloor: ratio('plain', 'activityFloor'),
      quickBoundOverGlobalReads: ratio('quick', 'quickGlobalReads'),
      plainBoundOverGlobalReads: ratio('plain', 'plainGlobalReads'),
    },
  });
}

runBench(main);

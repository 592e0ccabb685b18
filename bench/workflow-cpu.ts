/**
 * The workflow's own CPU per tool call, without the server's dispatch in the number: a turn of N
 * sequential calls (quick and ordinary) and the hand-written floors run once on the bench server,
 * then their histories are replayed — the same workflow code, on the same events, no server —
 * interleaved. Marginal cost per call: (replay of N calls − replay of 1 call) / (N − 1), reported
 * against the floor's (a local activity's for quick calls, an activity's for ordinary ones).
 * `npx tsx bench/workflow-cpu.ts` → bench/results/workflow-cpu.json (BENCH_CALLS, BENCH_RUNS).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { TurnClient } from 'durable-turns/client';
import { buildTurnWorkflowBundle, createTurnWorker, turnWorkflowSinks } from 'durable-turns/worker';
import type { localFloorWorkflow } from './floor-workflow';
import { logger, machineInfo, measureRounds, median, round, runBench, writeReport } from './measure';
import { stepTool, stepTurn } from './step-tools';
import { floorWorkflowBundle, openBenchTemporal, startFloorWorker, startWorker } from './temporal-env';

const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const log = logger('workflow-cpu');
const turns = ['step_quick', 'step_plain'] as const;
const floors = ['floorWorkflow', 'localFloorWorkflow'] as const;

/** Runs each turn, and each floor workflow, at 1 call and at CALLS calls, once, and keeps its history. */
async function recordHistories() {
  const bench = await openBenchTemporal(log);
  try {
    const worker = await createTurnWorker({
      connection: bench.native,
      namespace: bench.namespace,
      taskQueue: 'workflow-cpu',
      tools: [stepTool({ quick: false }), stepTool({ quick: true })],
      models: turns.flatMap((name) => [stepTurn(name, 1), stepTurn(name, CALLS)]),
      fleetHealth: false,
    });
    const running = [startWorker(worker), await startFloorWorker(bench, 'workflow-cpu-floor')];
    const client = new TurnClient({
      connection: bench.connection,
      namespace: bench.namespace,
      taskQueue: 'workflow-cpu',
    });
    const histories: Record<string, temporal.api.history.v1.IHistory> = {};
    for (const calls of [1, CALLS]) {
      for (const name of turns) {
        const turnId = `${name}-${calls}`;
        const result = await (await client.start({ turnId, input: 'go', model: turnId })).result();
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
  const histories = await recordHistories();
  const dir = await mkdtemp(join(tmpdir(), 'workflow-cpu-'));
  const turnBundle = join(dir, 'turn-workflows.js');
  await buildTurnWorkflowBundle({ outFile: turnBundle });
  const bundles = { turn: { codePath: turnBundle }, floor: await floorWorkflowBundle() };
  /** Each subject replayed at 1 call and at CALLS calls, to take the marginal cost. */
  const subjects = {
    quick: ['turn', 'step_quick'],
    plain: ['turn', 'step_plain'],
    localFloor: ['floor', 'localFloorWorkflow'],
    activityFloor: ['floor', 'floorWorkflow'],
  } as const satisfies Record<string, readonly [keyof typeof bundles, string]>;
  type Subject = keyof typeof subjects;
  const replay = (bundle: keyof typeof bundles, workflowId: string) => () => ({
    run: async () => {
      const history = histories[workflowId];
      if (!history) throw new Error(`no history for ${workflowId}`);
      await Worker.runReplayHistory(
        { workflowBundle: bundles[bundle], sinks: turnWorkflowSinks() },
        history,
        workflowId,
      );
    },
    // Replay throws on any mismatch: a run that returns replayed the whole workflow.
    verify: () => {},
  });
  const rounds = await measureRounds({
    trials: Object.fromEntries(
      Object.entries(subjects).flatMap(([subject, [bundle, id]]) => [
        [`${subject}:1`, replay(bundle, `${id}-1`)],
        [`${subject}:N`, replay(bundle, `${id}-${CALLS}`)],
      ]),
    ),
    warmup: 1,
    runs: Number(process.env.BENCH_RUNS ?? 7),
    onProgress: log,
  });
  await rm(dir, { recursive: true, force: true });
  /** Per round, the marginal CPU of one call of a subject. */
  const marginal = (subject: Subject) =>
    rounds.map(
      (r) =>
        ((r[`${subject}:N`]?.cpuMs ?? Number.NaN) - (r[`${subject}:1`]?.cpuMs ?? Number.NaN)) / (CALLS - 1),
    );
  const ratio = (subject: Subject, floor: Subject) => {
    const floorValues = marginal(floor);
    return round(median(marginal(subject).map((v, i) => v / (floorValues[i] ?? Number.NaN))));
  };
  await writeReport('workflow-cpu.json', {
    benchmark: 'workflow-cpu',
    machine: machineInfo(loadBefore),
    calls: CALLS,
    cpuMsPerCall: Object.fromEntries(
      (Object.keys(subjects) as Subject[]).map((s) => [s, round(median(marginal(s)))]),
    ),
    ratios: {
      quickOverLocalFloor: ratio('quick', 'localFloor'),
      plainOverActivityFloor: ratio('plain', 'activityFloor'),
    },
  });
}

runBench(main);

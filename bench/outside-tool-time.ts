/**
 * Our turns beside Temporal's own AI SDK integration (@temporalio/ai-sdk, bench/temporal-peer/)
 * on one dev server, interleaved round by round: the same scripted work on both sides — (a) a
 * wave of 8 concurrency-safe 250 ms calls in one response, (b) 3 responses × 1 and × 8 no-op
 * calls and 60 responses × 1 call, (c) a text-only turn, (d) 20 tool-heavy turns at once — each
 * worker in a child process of its own, timed by this process from start to result.
 *
 * From each turn's history: the tool phase (union of every tool activity's scheduled → completed),
 * the time outside it (turn time − tool phase), model activities, workflow tasks, events, bytes.
 * The headline, `outsideToolOverPeer`, is our time outside tool phases over the peer's, summed over
 * the single-turn kinds (paired within each round, median over rounds); target ≤ 1.0.
 *
 *   npm run bench:peer        (needs `npm install` in bench/temporal-peer; BENCH_RUNS=2 for a smoke run)
 *   → bench/results/peer.json
 */
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { TurnClient } from 'durable-turns/client';
import {
  check,
  machineInfo,
  measureRounds,
  type RunTimes,
  round,
  runBench,
  summarize,
  type Trial,
  writeReport,
} from './measure';
import {
  CONCURRENT_TURNS,
  callsOf,
  HEAVY_CALLS,
  HEAVY_RESPONSES,
  responsesOf,
  type ScriptName,
  scripts,
} from './outside-tool-time/script';
import { ourSide, peerSide, runPeerTurn, type Side, type SideName } from './outside-tool-time/sides';
import {
  eventTypeCounts,
  largestEventTypes,
  type TurnHistory,
  turnHistory,
} from './outside-tool-time/turn-history';
import { startWorkerProcess, type WorkerProcess } from './outside-tool-time/worker-process';
import { processCpuSeconds } from './proc-stats';
import { type BenchTemporal, openBenchTemporal, serverSettled } from './temporal-env';

/** A child's CPU seconds so far (its pid is unknown only if it never started). */
const cpuOf = (pid: number | undefined) => (pid === undefined ? undefined : processCpuSeconds(pid));
const log = (message: string) => process.stderr.write(`[peer] ${message}\n`);
const PEER_DIR = join(__dirname, 'temporal-peer');
const OUR_QUEUE = 'outside-tool-ours';
const PEER_QUEUE = 'outside-tool-peer';
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const WARMUP = 1;
/** The single turns the headline sums; `concurrent` runs 20 `heavyN` turns at once. */
const SINGLE: readonly ScriptName[] = ['text', 'wave', 'heavy1', 'heavyN', 'long60'];
type Kind = ScriptName | 'concurrent';
const KINDS: readonly Kind[] = [...SINGLE, 'concurrent'];
type TrialName = `${SideName}.${Kind}`;
const CONCURRENT_SCRIPT: ScriptName = 'heavyN';

const median = (values: readonly number[]) => summarize(values).medianMs;

/** A run's workflows, by trial, in round order (warm-up included: dropped later). */
type Runs = Map<TrialName, string[][]>;

let seq = 0;
function trialOf(side: Side, kind: Kind, runs: Runs, settleOn: number | undefined): () => Trial {
  return () => {
    const script = kind === 'concurrent' ? CONCURRENT_SCRIPT : kind;
    const count = kind === 'concurrent' ? CONCURRENT_TURNS : 1;
    const ids = Array.from({ length: count }, () => `${side.name}-${kind}-${++seq}`);
    let done = 0;
    return {
      // Untimed: the server finishes the previous trial's background work first.
      before: async () => void (await serverSettled(settleOn, { belowCores: 0.1, maxWaitMs: 5_000 })),
      run: async () => {
        await Promise.all(ids.map((id) => side.runTurn(script, id).then(() => (done += 1))));
      },
      verify: () => {
        check(done === count, `${side.name} ${kind}: ${done} of ${count} turns completed`);
        const name: TrialName = `${side.name}.${kind}`;
        runs.set(name, [...(runs.get(name) ?? []), ids]);
      },
    };
  };
}

/** A finished workflow's history, checked: one run (no continue-as-new), the right calls and requests. */
async function historyOf(side: Side, workflowId: string, script: ScriptName): Promise<TurnHistory> {
  const events = (await side.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const last = events.at(-1);
  check(
    last?.workflowExecutionCompletedEventAttributes != null,
    `${side.name} ${workflowId}: history ends in completion, in one run`,
  );
  const history = turnHistory(events, side.types);
  check(
    history.toolCalls === callsOf(script),
    `${side.name} ${workflowId}: ${history.toolCalls} tool activities completed, expected ${callsOf(script)}`,
  );
  check(
    history.modelRequests === responsesOf(script),
    `${side.name} ${workflowId}: ${history.modelRequests} model activities, expected ${responsesOf(script)}`,
  );
  return history;
}

/** One timed run of a kind on one side: client time, and each workflow's history. */
interface Measured {
  wallMs: number;
  histories: TurnHistory[];
}

async function measuredRuns(
  sides: Record<SideName, Side>,
  runs: Runs,
  rounds: readonly Record<TrialName, RunTimes>[],
): Promise<Map<TrialName, Measured[]>> {
  const out = new Map<TrialName, Measured[]>();
  for (const [name, all] of runs) {
    const [sideName, kind] = name.split('.') as [SideName, Kind];
    const script = kind === 'concurrent' ? CONCURRENT_SCRIPT : kind;
    const kept = all.slice(WARMUP);
    check(kept.length === rounds.length, `${name}: ${kept.length} runs for ${rounds.length} rounds`);
    const measured: Measured[] = [];
    for (const [r, ids] of kept.entries()) {
      const histories = [];
      for (const id of ids) histories.push(await historyOf(sides[sideName], id, script));
      measured.push({ wallMs: rounds[r]![name].wallMs, histories });
    }
    out.set(name, measured);
  }
  return out;
}

/** Outside-tool time of a single-turn run. */
const outsideMs = (m: Measured) => m.wallMs - m.histories[0]!.toolPhaseMs;

/** Medians over rounds of what a single turn's runs spent, ms (and counts). */
function turnStats(runs: readonly Measured[]) {
  const of = (f: (m: Measured, h: TurnHistory) => number) =>
    round(median(runs.map((m) => f(m, m.histories[0]!))), 1);
  return {
    turnMs: of((m) => m.wallMs),
    toolPhaseMs: of((_, h) => h.toolPhaseMs),
    outsideToolMs: of((m) => outsideMs(m)),
    /** Start RPC and result delivery: client turn time − first-to-last event. */
    clientOverheadMs: of((m, h) => m.wallMs - h.serverMs),
    modelRequests: of((_, h) => h.modelRequests),
    modelActivityMs: of((_, h) => h.modelMs),
    modelActivityOutsideToolsMs: of((_, h) => h.modelOutsideToolsMs),
    modelScheduleToStartMs: of((_, h) => h.modelQueueMs),
    workflowTasks: of((_, h) => h.workflowTasks),
    workflowTasksPerModelRequest: of((_, h) => h.workflowTasks / h.modelRequests),
    workflowTaskScheduleToStartMs: of((_, h) => h.workflowTaskQueueMs),
    workflowTaskRunMs: of((_, h) => h.workflowTaskRunMs),
    otherActivities: of((_, h) => h.activityTasksOther),
    events: of((_, h) => h.events),
    historyBytes: of((_, h) => h.bytes),
  };
}

function concurrentStats(runs: readonly Measured[]) {
  const perTurn = (f: (h: TurnHistory) => number) =>
    round(median(runs.map((m) => median(m.histories.map(f)))), 1);
  return {
    turns: CONCURRENT_TURNS,
    script: CONCURRENT_SCRIPT,
    allTurnsMs: round(median(runs.map((m) => m.wallMs)), 1),
    /** Medians over rounds of the median turn, by the server's clock. */
    perTurnServerMs: perTurn((h) => h.serverMs),
    perTurnToolPhaseMs: perTurn((h) => h.toolPhaseMs),
    perTurnOutsideToolServerMs: perTurn((h) => h.serverMs - h.toolPhaseMs),
    perTurnModelScheduleToStartMs: perTurn((h) => h.modelQueueMs),
    perTurnWorkflowTasks: perTurn((h) => h.workflowTasks),
  };
}

/** ours / peer of `f`, paired within each round; the median over rounds. */
function pairedRatio(
  ours: readonly Measured[],
  peer: readonly Measured[],
  f: (m: Measured) => number,
): number {
  return round(median(ours.map((m, r) => f(m) / f(peer[r]!))));
}

async function main() {
  if (!existsSync(join(PEER_DIR, 'node_modules', '@temporalio', 'ai-sdk'))) {
    console.error(
      `bench/temporal-peer is not installed: run \`npm install --no-audit --no-fund\` in ${PEER_DIR}`,
    );
    process.exitCode = 1;
    return;
  }
  const loadBefore = loadavg()[0] ?? 0;
  const bench = await openBenchTemporal(log);
  const workers: WorkerProcess[] = [];
  try {
    await measure(bench, workers, loadBefore);
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await bench.close();
  }
}

async function measure(bench: BenchTemporal, workers: WorkerProcess[], loadBefore: number) {
  const env = {
    ...process.env,
    TEMPORAL_ADDRESS: bench.address,
    TEMPORAL_NAMESPACE: bench.namespace,
    BENCH_SCRIPTS: JSON.stringify(scripts),
  };
  log('starting both workers (each bundles its workflow code)');
  const [ours, peer] = await Promise.all([
    startWorkerProcess({
      label: 'ours',
      command: process.execPath,
      args: ['--import', 'tsx', join(__dirname, 'outside-tool-time', 'our-worker.ts')],
      cwd: join(__dirname, '..'),
      env: { ...env, BENCH_TASK_QUEUE: OUR_QUEUE },
      log,
    }),
    startWorkerProcess({
      label: 'peer',
      command: process.execPath,
      args: ['worker.cjs'],
      cwd: PEER_DIR,
      env: { ...env, BENCH_TASK_QUEUE: PEER_QUEUE },
      log,
    }),
  ]);
  workers.push(ours, peer);
  const cpuAtReady = { ours: cpuOf(ours.pid), peer: cpuOf(peer.pid) };
  const peerClient = new Client({ connection: bench.connection, namespace: bench.namespace });
  const sides: Record<SideName, Side> = {
    ours: ourSide(
      new TurnClient({ connection: bench.connection, namespace: bench.namespace, taskQueue: OUR_QUEUE }),
    ),
    peer: peerSide(peerClient, PEER_QUEUE),
  };
  const runs: Runs = new Map();
  const trials = {} as Record<TrialName, () => Trial>;
  for (const kind of KINDS)
    for (const side of [sides.ours, sides.peer])
      trials[`${side.name}.${kind}`] = trialOf(side, kind, runs, bench.serverPid);
  const rounds = await measureRounds({
    trials,
    // Each pair trades places every other round, so neither side always goes second.
    swapped: KINDS.map((kind) => [`ours.${kind}`, `peer.${kind}`] as const),
    warmup: WARMUP,
    runs: RUNS,
    onProgress: log,
  });
  const cpuS = {
    ours: (cpuOf(ours.pid) ?? Number.NaN) - (cpuAtReady.ours ?? Number.NaN),
    peer: (cpuOf(peer.pid) ?? Number.NaN) - (cpuAtReady.peer ?? Number.NaN),
  };
  const loadAfterRounds = loadavg()[0] ?? 0;

  // Untimed, once: the peer's 60-call turn with `execute: activity` exactly as the sample writes it.
  const sampleFormId = `peer-long60-sample-form-${++seq}`;
  await runPeerTurn(peerClient, PEER_QUEUE, 'long60', sampleFormId, true);
  const sampleFormHistory = await historyOf(sides.peer, sampleFormId, 'long60');

  log('reading histories');
  const measured = await measuredRuns(sides, runs, rounds);
  const get = (name: TrialName) => measured.get(name) ?? [];
  const last = (name: TrialName) => get(name).at(-1)?.histories[0];
  /** The events of a kind's last single-turn run. */
  const lastEvents = async (side: Side, kind: ScriptName) => {
    const id = runs.get(`${side.name}.${kind}`)?.at(-1)?.[0] ?? '';
    return (await side.client.workflow.getHandle(id).fetchHistory()).events ?? [];
  };
  const eventTypes = async (kind: ScriptName) => ({
    ours: eventTypeCounts(await lastEvents(sides.ours, kind)),
    peer: eventTypeCounts(await lastEvents(sides.peer, kind)),
  });

  const byKind = Object.fromEntries(
    SINGLE.map((kind) => [
      kind,
      {
        calls: callsOf(kind),
        modelResponses: responsesOf(kind),
        ours: turnStats(get(`ours.${kind}`)),
        peer: turnStats(get(`peer.${kind}`)),
        oursOverPeer: {
          turn: pairedRatio(get(`ours.${kind}`), get(`peer.${kind}`), (m) => m.wallMs),
          outsideTool: pairedRatio(get(`ours.${kind}`), get(`peer.${kind}`), outsideMs),
        },
      },
    ]),
  );
  const outsideSum = (side: SideName, r: number) =>
    SINGLE.reduce((n, kind) => n + outsideMs(get(`${side}.${kind}`)[r]!), 0);
  const outsideToolOverPeer = round(
    median(rounds.map((_, r) => outsideSum('ours', r) / outsideSum('peer', r))),
  );
  const heavyCallsApart = HEAVY_RESPONSES * (HEAVY_CALLS - 1);
  const perCall = (side: SideName, r: number) =>
    (get(`${side}.heavyN`)[r]!.wallMs - get(`${side}.heavy1`)[r]!.wallMs) / heavyCallsApart;
  const perCallMs = (side: SideName) => round(median(rounds.map((_, r) => perCall(side, r))));

  await writeReport('peer.json', {
    benchmark: 'outside-tool-time',
    machine: { ...machineInfo(loadBefore), loadAfterRounds: round(loadAfterRounds, 2) },
    serverSettings: bench.serverSettings,
    serverState: bench.stateMedium,
    rounds: RUNS,
    warmupRounds: WARMUP,
    sides: {
      ours: {
        what: 'createTurnWorker defaults (fleet health on, parallel dispatch, maxConcurrency 8), scriptedModel streaming (calls launch mid-stream), TurnClient.start → result(); worker in its own process (node --import tsx)',
        workflowBundle: ours.ready.workflowBundle,
        workerCpuS: round(cpuS.ours, 2),
      },
      peer: {
        what: '@temporalio/ai-sdk as its README/samples show: Worker with plugins: [new AiSdkPlugin({ modelProvider })] (a scripted ProviderV4, doGenerate), generateText({ model: temporalProvider.languageModel(script), tools: { name: tool({ inputSchema: zod, execute: (input) => proxiedActivity(input) }) }, stopWhen: stepCountIs(responses) }), tools as activities (startToCloseTimeout 1 minute); client.workflow.start → result(); worker in its own process',
        versions: peer.ready.versions,
        workerCpuS: round(cpuS.peer, 2),
      },
    },
    method:
      'turn time: client start → result; tool phase: union of tool activities’ ActivityTaskScheduled → ActivityTaskCompleted (ours runTool, peer wait/noop); outside-tool = turn time − tool phase; ratios ours/peer paired within a round, medians over rounds; per call = (T(3×8 calls) − T(3×1)) / 21',
    outsideToolOverPeer,
    outsideToolTarget: 1,
    ratios: {
      waveTurn: pairedRatio(get('ours.wave'), get('peer.wave'), (m) => m.wallMs),
      toolPhase: pairedRatio(get('ours.wave'), get('peer.wave'), (m) => m.histories[0]!.toolPhaseMs),
      perCall: round(median(rounds.map((_, r) => perCall('ours', r) / perCall('peer', r)))),
      outsideTool: outsideToolOverPeer,
      historyBytesAt60Calls: round((last('ours.long60')?.bytes ?? 0) / (last('peer.long60')?.bytes ?? 1)),
      concurrentTurns20: pairedRatio(get('ours.concurrent'), get('peer.concurrent'), (m) => m.wallMs),
    },
    perCallMs: { ours: perCallMs('ours'), peer: perCallMs('peer') },
    turns: byKind,
    concurrent: {
      ours: concurrentStats(get('ours.concurrent')),
      peer: concurrentStats(get('peer.concurrent')),
    },
    historyAt60Calls: {
      ours: { events: last('ours.long60')?.events, bytes: last('ours.long60')?.bytes },
      peer: { events: last('peer.long60')?.events, bytes: last('peer.long60')?.bytes },
      peerSampleForm: {
        what: 'execute: activity (as the sample passes getWeather): the AI SDK hands the activity its options too (toolCallId, messages, …)',
        events: sampleFormHistory.events,
        bytes: sampleFormHistory.bytes,
      },
      largestEventTypes: {
        ours: largestEventTypes(await lastEvents(sides.ours, 'long60')),
        peer: largestEventTypes(await lastEvents(sides.peer, 'long60')),
      },
    },
    /** Events by type in the last run of the text-only and wave turns. */
    eventTypes: { text: await eventTypes('text'), wave: await eventTypes('wave') },
  });
}

runBench(main);

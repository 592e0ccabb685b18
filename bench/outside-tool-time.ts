/**
 * Our turns beside Temporal's own AI SDK integration (@temporalio/ai-sdk, bench/temporal-peer/)
 * on one dev server, interleaved round by round: the same scripted work on both sides — (a) a
 * wave of 8 concurrency-safe 250 ms calls in one response, (b) 3 responses × 1 and × 8 no-op
 * calls and 60 responses × 1 call, (c) a text-only turn, (d) 20 tool-heavy turns at once — each
 * worker in a child process of its own, timed by this process from start to result. The scripts
 * go to both workers as one JSON (BENCH_SCRIPTS), so neither side can drift from the other.
 *
 * From each turn's history, the tool phase: the union of every tool activity's scheduled →
 * completed. The headline, `outsideToolOverPeer`, is our time outside tool phases (turn time − tool
 * phase) over the peer's, summed over the single-turn kinds (paired within each round, median over
 * rounds); target ≤ 1.0.
 *
 *   npm run bench:peer        (needs `npm install` in bench/temporal-peer; BENCH_RUNS=2 for a smoke run)
 *   → bench/results/peer.json
 */
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import type { ScriptedStep } from 'durable-turns';
import { TurnClient } from 'durable-turns/client';
import { eventBytes, type HistoryEvent } from '../test/support/history-events';
import {
  check,
  logger,
  machineInfo,
  measureRounds,
  median,
  round,
  runBench,
  type Trial,
  writeReport,
} from './measure';
import { noopSteps, verifyTurns } from './noop';
import { eventTimeMs, openBenchTemporal, serverSettled } from './temporal-env';
import { startBenchWorker, startWorkerProcess, type WorkerProcess } from './worker-process';

const log = logger('peer');
const PEER_DIR = join(__dirname, 'temporal-peer');
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const WARMUP = 1;
/** Calls per response in the tool-heavy turn: our default maxConcurrency, so both run each batch at once. */
const HEAVY_CALLS = 8;
const HEAVY_RESPONSES = 3;
const CONCURRENT_TURNS = 20;

const times = (count: number, size: number) => Array.from({ length: count }, () => size);
const scripts = {
  /** (c) No tools: one model response. */
  text: [{ text: 'done' }],
  /** (a) One response asking for 8 concurrency-safe calls of 250 ms each, then the answer. */
  wave: [
    { toolCalls: Array.from({ length: 8 }, (_, i) => ({ id: `w${i}`, name: 'wait', args: { ms: 250, i } })) },
    { text: 'done' },
  ],
  /** (b) Three responses of one no-op call: the baseline the per-call cost is measured against. */
  heavy1: noopSteps(times(HEAVY_RESPONSES, 1)),
  /** (b) Three responses of 8 no-op calls. */
  heavyN: noopSteps(times(HEAVY_RESPONSES, HEAVY_CALLS)),
  /** (b) 60 responses of one no-op call each: the long agent loop whose history is weighed. */
  long60: noopSteps(times(60, 1)),
} satisfies Record<string, ScriptedStep[]>;
type ScriptName = keyof typeof scripts;
const callsOf = (name: ScriptName) =>
  (scripts[name] as ScriptedStep[]).reduce(
    (n, step) => n + ('toolCalls' in step ? (step.toolCalls?.length ?? 0) : 0),
    0,
  );
const responsesOf = (name: ScriptName) => scripts[name].length;

/** The single turns the headline sums; `concurrent` runs 20 `heavyN` turns at once. */
const SINGLE: readonly ScriptName[] = ['text', 'wave', 'heavy1', 'heavyN', 'long60'];
type Kind = ScriptName | 'concurrent';
const KINDS: readonly Kind[] = [...SINGLE, 'concurrent'];
type SideName = 'ours' | 'peer';
type TrialName = `${SideName}.${Kind}`;

/** How a side starts a turn and checks its result, and which activity types its history calls tools and model requests. */
interface Side {
  name: SideName;
  tools: readonly string[];
  model: string;
  client: Client;
  runTurn(script: ScriptName, workflowId: string): Promise<void>;
}

function ourSide(turns: TurnClient): Side {
  return {
    name: 'ours',
    tools: ['runTool'],
    model: 'callModel',
    client: turns.client,
    runTurn: async (script, turnId) => {
      const result = await (await turns.start({ turnId, input: 'go', model: script })).result();
      verifyTurns([result], [turnId], { calls: callsOf(script), responses: responsesOf(script) });
    },
  };
}

function peerSide(client: Client, taskQueue: string): Side {
  return {
    name: 'peer',
    tools: ['wait', 'noop'],
    model: 'invokeModel',
    client,
    runTurn: async (script, workflowId) => {
      const handle = await client.workflow.start('peerTurn', {
        workflowId,
        taskQueue,
        args: [{ model: script, prompt: 'go', maxSteps: responsesOf(script) }],
      });
      // What bench/temporal-peer/workflows.cjs returns.
      const result = (await handle.result()) as {
        text: string;
        steps: number;
        toolCalls: number;
        toolResults: number;
      };
      const calls = callsOf(script);
      check(
        result.text === 'done' &&
          result.toolCalls === calls &&
          result.toolResults === calls &&
          result.steps === responsesOf(script),
        `peer ${workflowId}: ${JSON.stringify(result)}, expected ${calls} calls in ${responsesOf(script)} steps`,
      );
    },
  };
}

/** What one finished turn's history says, the same way for both sides. */
interface TurnHistory {
  events: number;
  bytes: number;
  toolCalls: number;
  /** The union of the tool activities' scheduled → completed. */
  toolPhaseMs: number;
  modelRequests: number;
  workflowTasks: number;
}

/** The length of a union of intervals. */
function unionMs(intervals: readonly (readonly [number, number])[]): number {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const [from, to] of sorted) {
    if (to <= end) continue;
    total += to - Math.max(from, end);
    end = to;
  }
  return total;
}

/** A finished workflow's history, checked: one run (no continue-as-new), the right calls and requests. */
async function historyOf(side: Side, workflowId: string, script: ScriptName): Promise<TurnHistory> {
  const events: HistoryEvent[] =
    (await side.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const byId = new Map(events.map((e) => [Number(e.eventId ?? 0), e]));
  const tools: [number, number][] = [];
  let modelRequests = 0;
  for (const e of events) {
    const scheduledId = e.activityTaskCompletedEventAttributes?.scheduledEventId;
    if (scheduledId === undefined || scheduledId === null) continue;
    const scheduled = byId.get(Number(scheduledId));
    const type = scheduled?.activityTaskScheduledEventAttributes?.activityType?.name ?? '';
    if (side.tools.includes(type)) tools.push([eventTimeMs(scheduled), eventTimeMs(e)]);
    else if (type === side.model) modelRequests += 1;
  }
  const label = `${side.name} ${workflowId}`;
  check(events.at(-1)?.workflowExecutionCompletedEventAttributes != null, `${label}: completed in one run`);
  check(
    tools.length === callsOf(script),
    `${label}: ${tools.length} tool activities, expected ${callsOf(script)}`,
  );
  check(modelRequests === responsesOf(script), `${label}: ${modelRequests} model activities`);
  return {
    events: events.length,
    bytes: events.reduce((n, e) => n + eventBytes(e), 0),
    toolCalls: tools.length,
    toolPhaseMs: unionMs(tools),
    modelRequests,
    workflowTasks: events.filter((e) => e.workflowTaskCompletedEventAttributes).length,
  };
}

/** One timed run of a kind on one side: client time, and each workflow's history. */
interface Measured {
  wallMs: number;
  histories: TurnHistory[];
}

async function main() {
  if (!existsSync(join(PEER_DIR, 'node_modules', '@temporalio', 'ai-sdk'))) {
    log(`bench/temporal-peer is not installed: run \`npm install --no-audit --no-fund\` in ${PEER_DIR}`);
    process.exitCode = 1;
    return;
  }
  const loadBefore = loadavg()[0] ?? 0;
  const bench = await openBenchTemporal(log);
  const workers: WorkerProcess[] = [];
  try {
    const env = {
      TEMPORAL_ADDRESS: bench.address,
      TEMPORAL_NAMESPACE: bench.namespace,
      BENCH_SCRIPTS: JSON.stringify(scripts),
    };
    log('starting both workers (each bundles its workflow code)');
    const [ours, peer] = await Promise.all([
      startBenchWorker('ours', { ...env, BENCH_TASK_QUEUE: 'outside-tool-ours' }, log),
      startWorkerProcess({
        label: 'peer',
        command: process.execPath,
        args: ['worker.cjs'],
        cwd: PEER_DIR,
        env: { ...process.env, ...env, BENCH_TASK_QUEUE: 'outside-tool-peer' },
        log,
      }),
    ]);
    workers.push(ours, peer);
    const sides: Record<SideName, Side> = {
      ours: ourSide(
        new TurnClient({
          connection: bench.connection,
          namespace: bench.namespace,
          taskQueue: 'outside-tool-ours',
        }),
      ),
      peer: peerSide(
        new Client({ connection: bench.connection, namespace: bench.namespace }),
        'outside-tool-peer',
      ),
    };
    /** Each trial's workflows, in round order (warm-up included: dropped below). */
    const ids = new Map<TrialName, string[][]>();
    let seq = 0;
    const trials = {} as Record<TrialName, () => Trial>;
    for (const kind of KINDS)
      for (const side of [sides.ours, sides.peer])
        trials[`${side.name}.${kind}`] = () => {
          const script = kind === 'concurrent' ? 'heavyN' : kind;
          const run = Array.from(
            { length: kind === 'concurrent' ? CONCURRENT_TURNS : 1 },
            () => `${side.name}-${kind}-${++seq}`,
          );
          return {
            // Untimed: the server finishes the previous trial's background work first.
            before: async () =>
              void (await serverSettled(bench.serverPid, { belowCores: 0.1, maxWaitMs: 5_000 })),
            run: async () => void (await Promise.all(run.map((id) => side.runTurn(script, id)))),
            verify: () => ids.set(`${side.name}.${kind}`, [...(ids.get(`${side.name}.${kind}`) ?? []), run]),
          };
        };
    const rounds = await measureRounds({
      trials,
      // Each pair trades places every other round, so neither side always goes second.
      swapped: KINDS.map((kind) => [`ours.${kind}`, `peer.${kind}`] as const),
      warmup: WARMUP,
      runs: RUNS,
      onProgress: log,
    });

    log('reading histories');
    const measured = new Map<TrialName, Measured[]>();
    for (const [name, all] of ids) {
      const [sideName, kind] = name.split('.') as [SideName, Kind];
      const runs: Measured[] = [];
      for (const [r, run] of all.slice(WARMUP).entries()) {
        const histories = [];
        for (const id of run)
          histories.push(await historyOf(sides[sideName], id, kind === 'concurrent' ? 'heavyN' : kind));
        runs.push({ wallMs: rounds[r]![name].wallMs, histories });
      }
      measured.set(name, runs);
    }
    const get = (name: TrialName) => measured.get(name) ?? [];
    const outsideMs = (m: Measured) => m.wallMs - m.histories[0]!.toolPhaseMs;
    /** ours / peer of `f`, paired within each round; the median over rounds. */
    const paired = (kind: Kind, f: (m: Measured) => number) => {
      const peerRuns = get(`peer.${kind}`);
      return round(median(get(`ours.${kind}`).map((m, r) => f(m) / f(peerRuns[r]!))));
    };
    /** Medians over rounds of what a single turn's runs spent. */
    const turnStats = (name: TrialName) => {
      const of = (f: (m: Measured, h: TurnHistory) => number) =>
        round(median(get(name).map((m) => f(m, m.histories[0]!))), 1);
      return {
        turnMs: of((m) => m.wallMs),
        toolPhaseMs: of((_, h) => h.toolPhaseMs),
        outsideToolMs: of((m) => outsideMs(m)),
        modelRequests: of((_, h) => h.modelRequests),
        workflowTasks: of((_, h) => h.workflowTasks),
        events: of((_, h) => h.events),
        historyBytes: of((_, h) => h.bytes),
      };
    };
    const outsideSum = (side: SideName, r: number) =>
      SINGLE.reduce((n, kind) => n + outsideMs(get(`${side}.${kind}`)[r]!), 0);
    const outsideToolOverPeer = round(
      median(rounds.map((_, r) => outsideSum('ours', r) / outsideSum('peer', r))),
    );
    const perCall = (side: SideName, r: number) =>
      (get(`${side}.heavyN`)[r]!.wallMs - get(`${side}.heavy1`)[r]!.wallMs) /
      (HEAVY_RESPONSES * (HEAVY_CALLS - 1));
    const perCallMs = (side: SideName) => round(median(rounds.map((_, r) => perCall(side, r))));
    await writeReport('peer.json', {
      benchmark: 'outside-tool-time',
      machine: machineInfo(loadBefore),
      serverSettings: bench.serverSettings,
      rounds: RUNS,
      warmupRounds: WARMUP,
      sides: {
        ours: 'createTurnWorker defaults (fleet health on, parallel dispatch, maxConcurrency 8), scriptedModel streaming (calls launch mid-stream), TurnClient.start → result(); worker in its own process (node --import tsx)',
        peer: {
          what: '@temporalio/ai-sdk as its README/samples show: Worker with plugins: [new AiSdkPlugin({ modelProvider })] (a scripted ProviderV4, doGenerate), generateText({ model: temporalProvider.languageModel(script), tools: { name: tool({ inputSchema: zod, execute: (input) => proxiedActivity(input) }) }, stopWhen: stepCountIs(responses) }), tools as activities (startToCloseTimeout 1 minute); client.workflow.start → result(); worker in its own process',
          versions: peer.ready.versions,
        },
      },
      method:
        'turn time: client start → result; tool phase: union of tool activities’ ActivityTaskScheduled → ActivityTaskCompleted (ours runTool, peer wait/noop); outside-tool = turn time − tool phase; ratios ours/peer paired within a round, medians over rounds; per call = (T(3×8 calls) − T(3×1)) / 21',
      outsideToolOverPeer,
      outsideToolTarget: 1,
      ratios: {
        waveTurn: paired('wave', (m) => m.wallMs),
        toolPhase: paired('wave', (m) => m.histories[0]!.toolPhaseMs),
        perCall: round(median(rounds.map((_, r) => perCall('ours', r) / perCall('peer', r)))),
        outsideTool: outsideToolOverPeer,
        historyBytesAt60Calls: paired('long60', (m) => m.histories[0]!.bytes),
        concurrentTurns20: paired('concurrent', (m) => m.wallMs),
      },
      perCallMs: { ours: perCallMs('ours'), peer: perCallMs('peer') },
      turns: Object.fromEntries(
        SINGLE.map((kind) => [
          kind,
          {
            calls: callsOf(kind),
            modelResponses: responsesOf(kind),
            ours: turnStats(`ours.${kind}`),
            peer: turnStats(`peer.${kind}`),
            oursOverPeer: { turn: paired(kind, (m) => m.wallMs), outsideTool: paired(kind, outsideMs) },
          },
        ]),
      ),
    });
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await bench.close();
  }
}

runBench(main);

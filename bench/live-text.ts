/**
 * Live text benchmark: what it costs a turn's history to show its text while the model streams,
 * and how late a watcher sees each delta, for three designs.
 *
 * A turn of 5 responses, each streaming ~2 KB of text as 100 deltas of 20 chars, one every 20 ms
 * (4 end in a no-op tool call, the 5th answers):
 *   (c) heartbeat: what durable-turns does — the model activity heartbeats the text so far
 *       (contract/live-text.ts) and `TurnHandle.watch` reads it from `describe()`; measured with
 *       0, 1 and 4 watchers;
 *   (b) signals: the same turn, plus the deltas sent to the workflow by a signal every 200 ms from
 *       inside the model activity (the turn workflow has no handler: a handler would add nothing to
 *       history, and a watcher would still need a query per look). Latency here is delta emitted →
 *       signal acknowledged by the server, a lower bound: a watcher adds a workflow task and a query;
 *   (a) Temporal's Workflow Streams contrib (@temporalio/workflow-streams 1.23.0) as published: it
 *       lives in bench/workflow-streams/ (its own package: it pins @temporalio/* 1.23.0 exactly), run
 *       against this script's server when installed (`npm install` there), with 1, 4 and 12
 *       subscribers; with them polling, 20 quick updates (standing for the call hand-over) are timed.
 *
 * Prints one JSON object to stdout (progress on stderr) and writes it to bench/results/live-text.json.
 *
 *   npx tsx bench/live-text.ts
 */

import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Context } from '@temporalio/activity';
import { temporal as proto } from '@temporalio/proto';
import {
  defineTool,
  type ModelRequest,
  type ModelStreamPart,
  type ScriptedPart,
  scriptedModel,
  type TurnModel,
} from 'durable-turns';
import { TurnClient } from 'durable-turns/client';
import { createTurnWorker } from 'durable-turns/worker';
import { z } from 'zod';
import { machineInfo, round } from './measure';
import { openBenchTemporal, startWorker } from './temporal-env';

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
const TASK_QUEUE = 'bench-live-text';
const RESPONSES = 5;
const DELTAS = 100;
const DELTA_MS = 20;
const SIGNAL_EVERY_MS = 200;
const WATCH_INTERVAL_MS = 100;
const EventType = proto.api.enums.v1.EventType;
const eventBytes = (event: proto.api.history.v1.IHistoryEvent) =>
  proto.api.history.v1.HistoryEvent.encode(event).finish();

/** Each delta names its response and number (`r2d042`), padded to 20 chars. */
const deltaText = (r: number, d: number) => `${`r${r}d${String(d).padStart(3, '0')}`.padEnd(19, '.')} `;
const deltaLabel = /r\d+d\d{3}/g;

const noop = defineTool({
  name: 'noop',
  description: 'Does nothing.',
  input: z.object({}),
  concurrencySafe: true,
  execute: async () => 'ok',
});

function script(): ScriptedPart[][] {
  return Array.from({ length: RESPONSES }, (_, r) => [
    ...Array.from(
      { length: DELTAS },
      (_, d): ScriptedPart => ({ type: 'text-delta', delta: deltaText(r, d), delayMs: DELTA_MS }),
    ),
    ...(r < RESPONSES - 1
      ? [{ type: 'tool-call', toolCallId: `call_${r}`, toolName: 'noop', input: '{}' } as ScriptedPart]
      : []),
    {
      type: 'finish',
      finishReason: r < RESPONSES - 1 ? 'tool-calls' : 'stop',
      usage: { inputTokens: 1, outputTokens: 1 },
    },
  ]);
}

/** When each delta label left the model, per turn. */
const emitted = new Map<string, number>();
/** When each delta label's signal was acknowledged (design b). */
const signalled = new Map<string, number>();
let signalsOn = new Set<string>();

/**
 * The scripted model, timing each delta; for turns in `signalsOn`, also sending the deltas to the
 * workflow every SIGNAL_EVERY_MS (design b), from the model activity it runs in.
 */
function benchModel(): TurnModel {
  const inner = scriptedModel(script().map((parts) => ({ parts })));
  return {
    name: 'scripted',
    async *stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
      const signals = signalsOn.has(request.turnId);
      const handle = signals ? Context.current().client.workflow.getHandle(request.turnId) : undefined;
      let pending = '';
      let offset = 0;
      const flush = async () => {
        if (!handle || !pending) return;
        const text = pending;
        pending = '';
        await handle.signal('liveText', { responseIndex: request.responseIndex, offset, text });
        offset += text.length;
        const at = performance.now();
        for (const [label] of text.matchAll(deltaLabel)) signalled.set(`${request.turnId}/${label}`, at);
      };
      const timer = handle ? setInterval(() => void flush(), SIGNAL_EVERY_MS) : undefined;
      try {
        for await (const part of inner.stream(request)) {
          if (part.type === 'text-delta') {
            for (const [label] of part.delta.matchAll(deltaLabel))
              emitted.set(`${request.turnId}/${label}`, performance.now());
            pending += part.delta;
          }
          yield part;
        }
      } finally {
        clearInterval(timer);
        // Not awaited: holding the stream's end open would make the turn's calls go by Update.
        void flush();
      }
    },
  };
}

function latency(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) =>
    round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN);
  return { samples: sorted.length, p50: at(0.5), p90: at(0.9), max: round(sorted.at(-1) ?? Number.NaN) };
}

async function main() {
  const loadBefore = loadavg()[0] ?? 0;
  const temporal = await openBenchTemporal(log);
  const report: Record<string, unknown> = {
    turn: { responses: RESPONSES, deltasPerResponse: DELTAS, deltaChars: 20, deltaEveryMs: DELTA_MS },
  };
  try {
    const worker = await createTurnWorker({
      connection: temporal.native,
      namespace: temporal.namespace,
      taskQueue: TASK_QUEUE,
      tools: [noop],
      models: [benchModel()],
    });
    const running = startWorker(worker);
    const client = new TurnClient({
      connection: temporal.connection,
      namespace: temporal.namespace,
      taskQueue: TASK_QUEUE,
    });
    let seq = 0;

    const runTurn = async ({ watchers, signals }: { watchers: number; signals: boolean }) => {
      const turnId = `live-${signals ? 'signals' : 'heartbeat'}-${watchers}w-${++seq}`;
      if (signals) signalsOn = new Set([...signalsOn, turnId]);
      const turn = await client.start({ turnId, input: 'go', model: 'scripted' });
      const seenAt: number[] = [];
      const watching = Array.from({ length: watchers }, async (_, w) => {
        for await (const event of client.watch(turnId, { intervalMs: WATCH_INTERVAL_MS })) {
          // Latency of live deltas only: the completion from the recorded text is not live.
          if (w !== 0 || event.kind !== 'delta') continue;
          const now = performance.now();
          for (const [label] of event.delta.matchAll(deltaLabel)) {
            const at = emitted.get(`${turnId}/${label}`);
            if (at !== undefined) seenAt.push(now - at);
          }
        }
      });
      const result = await turn.result();
      await Promise.all(watching);
      if (result.status !== 'completed') throw new Error(`turn ${turnId} ended ${result.status}`);
      const history = await client.client.workflow.getHandle(turnId).fetchHistory();
      const events = history.events ?? [];
      const count = (type: number) => events.filter((e) => e.eventType === type).length;
      const holdingText = events.filter((e) =>
        Buffer.from(eventBytes(e)).toString('latin1').includes(deltaText(1, 50)),
      ).length;
      const signalLag = [...signalled.entries()]
        .filter(([key]) => key.startsWith(`${turnId}/`))
        .map(([key, at]) => at - (emitted.get(key) ?? at));
      return {
        events: events.length,
        bytes: proto.api.history.v1.History.encode(history).finish().length,
        signals: count(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED),
        updates: count(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED),
        workflowTasks: count(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED),
        /** More than RESPONSES: a model request failed and was asked again (e.g. its transcript query timed out). */
        modelAttempts: events.filter(
          (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel',
        ).length,
        /** Events whose bytes hold one given delta's text (the result's, the workflow's, …). */
        eventsHoldingADelta: holdingText,
        ...(watchers > 0 ? { watchLatencyMs: latency(seenAt) } : {}),
        ...(signals ? { signalAckLatencyMs: latency(signalLag) } : {}),
      };
    };

    log('warm-up');
    await runTurn({ watchers: 0, signals: false });

    const heartbeat = {
      watchers0: await runTurn({ watchers: 0, signals: false }),
      watchers1: await runTurn({ watchers: 1, signals: false }),
      watchers4: await runTurn({ watchers: 4, signals: false }),
      // More watchers than a workflow has update slots (10): they take none.
      watchers12: await runTurn({ watchers: 12, signals: false }),
    };
    log('signals');
    const signals = await runTurn({ watchers: 0, signals: true });
    const base = heartbeat.watchers0;
    const added = (run: { events: number; bytes: number }) => ({
      events: run.events - base.events,
      bytes: run.bytes - base.bytes,
    });
    report.c_heartbeat = { ...heartbeat, addedBy12Watchers: added(heartbeat.watchers12) };
    report.b_signals = { ...signals, added: added(signals) };
    await running.stop();
    report.a_workflowStreams = await workflowStreams(temporal.address);
    report.machine = machineInfo(loadBefore);
  } finally {
    await temporal.close();
  }
  const json = JSON.stringify(report, null, 2);
  process.stdout.write(`${json}\n`);
  const dir = join(__dirname, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'live-text.json'), `${json}\n`);
}

/** Design (a), in its own package beside this one (see bench/workflow-streams/run.cjs). */
async function workflowStreams(address: string): Promise<unknown> {
  const dir = join(__dirname, 'workflow-streams');
  if (!existsSync(join(dir, 'node_modules', '@temporalio', 'workflow-streams')))
    return { skipped: `not installed: run \`npm install\` in ${dir}` };
  const runs: Record<string, unknown> = {};
  for (const subscribers of [1, 4, 12]) {
    log(`workflow streams, ${subscribers} subscriber(s)`);
    const { stdout } = await promisify(execFile)('node', ['run.cjs'], {
      cwd: dir,
      env: { ...process.env, TEMPORAL_ADDRESS: address, SUBSCRIBERS: String(subscribers) },
      timeout: 180_000,
    });
    runs[`subscribers${subscribers}`] = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
  }
  return runs;
}

main().catch((error: unknown) => {
  const cause =
    error instanceof Error && error.cause instanceof Error ? `\ncaused by: ${error.cause.message}` : '';
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}${cause}\n`,
  );
  process.exit(1);
});

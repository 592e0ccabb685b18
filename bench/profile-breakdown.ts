/**
 * Splits the per-call cost of a 1,000-call turn into its parts by running each part on its own,
 * outside the executor (not part of the report; for finding where dispatch time goes):
 *
 *   npx tsx bench/profile-breakdown.ts         (MODE=sequential for the one-at-a-time engine loop)
 *
 * Parts: preparing the model's calls (buildModelResponse → prepareCall), the engine's transitions,
 * one tool attempt (runToolAttempt), the journal's appends (MemoryJournal), AbortController setup.
 */
import {
  type JournalEntry,
  MemoryJournal,
  type PreparedCall,
  scriptedModel,
  ToolHealthRegistry,
} from 'durable-turns';
import {
  buildModelResponse,
  type CollectedResponse,
  runToolAttempt,
  ToolRegistry,
  TurnEngine,
  zeroUsage,
} from '../core';
import { streamResponse } from '../models';
import { ExecutionCounter, noopCalls, noopTool } from './noop-tool';

const calls = Number(process.env.CALLS ?? 1_000);
const mode = process.env.MODE === 'sequential' ? 'sequential' : 'parallel';
const rounds = 30;

const timers = {
  now: () => Date.now(),
  setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms),
  clearTimeout: (h: unknown) => clearTimeout(h as NodeJS.Timeout),
};

const counter = new ExecutionCounter();
const registry = new ToolRegistry([noopTool(counter)]);

function collected(): CollectedResponse {
  return {
    parts: [],
    calls: noopCalls(calls).map((c) => ({
      toolCallId: c.id,
      toolName: c.name,
      input: JSON.stringify(c.args),
    })),
    usage: zeroUsage,
    finishReason: 'tool-calls',
    complete: true,
  };
}

interface EngineRun {
  prepareMs: number;
  toolLoopMs: number;
  finishMs: number;
  prepared: PreparedCall[];
  appends: JournalEntry[][];
}

/** The engine's side of the turn, with tool results made up on the spot; `nextEach` as driveTurn at worst. */
function engineRun(nextEach: boolean): EngineRun {
  const appends: JournalEntry[][] = [];
  const { engine, entries } = TurnEngine.start({
    turnId: 'breakdown',
    input: 'go',
    config: { dispatch: { mode, maxConcurrency: calls }, detection: { enabled: false } },
    now: Date.now(),
  });
  appends.push(entries);
  const first = engine.next(Date.now());
  appends.push(first.entries);
  let t = performance.now();
  const response = buildModelResponse({
    collected: collected(),
    registry,
    responseIndex: 0,
    priorCallIds: engine.view.callIds,
  });
  appends.push(engine.onModelResponded(response));
  const prepareMs = performance.now() - t;
  t = performance.now();
  let step = engine.next(Date.now());
  appends.push(step.entries);
  while (step.op.kind === 'run-tools' || step.op.kind === 'wait') {
    const starts = step.op.kind === 'run-tools' ? step.op.starts : [];
    for (const start of starts) {
      appends.push(
        engine.onToolAttemptFinished({
          toolCallId: start.call.toolCallId,
          attempt: start.attempt,
          result: { status: 'ok', content: 'ok', resultHash: '0' },
          durationMs: 0,
          now: Date.now(),
        }),
      );
      if (nextEach && start !== starts[starts.length - 1]) appends.push(engine.next(Date.now()).entries);
    }
    step = engine.next(Date.now());
    appends.push(step.entries);
    if (step.op.kind === 'call-model') break;
  }
  const toolLoopMs = performance.now() - t;
  t = performance.now();
  engine.onModelResponded(
    buildModelResponse({
      collected: {
        parts: [{ type: 'text', text: 'done' }],
        calls: [],
        usage: zeroUsage,
        finishReason: 'stop',
        complete: true,
      },
      registry,
      responseIndex: 1,
      priorCallIds: engine.view.callIds,
    }),
  );
  const last = engine.next(Date.now());
  if (last.op.kind !== 'finished') throw new Error(`engine did not finish: ${last.op.kind}`);
  const finishMs = performance.now() - t;
  return {
    prepareMs,
    toolLoopMs,
    finishMs,
    prepared: response.calls,
    appends: appends.filter((a) => a.length > 0),
  };
}

/** Streaming the model's response (ScriptedModel's async generator → streamResponse → collector). */
async function streamModelResponse(): Promise<number> {
  const model = scriptedModel([{ toolCalls: noopCalls(calls) }]);
  const t = performance.now();
  const { collected } = await streamResponse({
    model,
    request: {
      turnId: 'breakdown',
      responseIndex: 0,
      messages: [],
      tools: [],
      idempotencyKey: 'breakdown/model/0',
    },
  });
  const elapsed = performance.now() - t;
  if (collected.calls.length !== calls) throw new Error('the stream lost calls');
  return elapsed;
}

async function toolAttempts(prepared: PreparedCall[], withLaunchController: boolean): Promise<number> {
  const health = new ToolHealthRegistry({ now: timers.now });
  const t = performance.now();
  const run = (call: PreparedCall) =>
    runToolAttempt({
      turnId: 'breakdown',
      call,
      attempt: 1,
      approved: false,
      registry,
      hooks: [],
      observers: [],
      health,
      timers,
      ...(withLaunchController ? { signal: new AbortController().signal } : {}),
    });
  if (mode === 'sequential') for (const call of prepared) await run(call);
  else await Promise.all(prepared.map(run));
  return performance.now() - t;
}

async function journalAppends(appends: JournalEntry[][]): Promise<number> {
  const session = await new MemoryJournal().open({ turnId: 'breakdown', owner: 'bench' });
  let version = 0;
  const t = performance.now();
  for (const entries of appends) version = await session.append(entries, version);
  return performance.now() - t;
}

function abortControllers(): number {
  const t = performance.now();
  for (let i = 0; i < calls; i++)
    new AbortController().signal.addEventListener('abort', () => {}, { once: true });
  return performance.now() - t;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const us = (ms: number) => `${((ms * 1000) / calls).toFixed(1)} µs/call`;

async function main(): Promise<void> {
  const samples: Record<string, number[]> = {};
  const add = (key: string, ms: number) => {
    samples[key] ??= [];
    samples[key].push(ms);
  };
  let appendCount = 0;
  for (let r = 0; r < rounds; r++) {
    const worst = engineRun(true);
    const best = engineRun(false);
    add('0 stream the response (ScriptedModel → streamResponse)', await streamModelResponse());
    add('1 prepare calls (buildModelResponse + onModelResponded)', worst.prepareMs);
    add('2a engine tool loop, next() after every completion', worst.toolLoopMs);
    add('2b engine tool loop, next() once per wave', best.toolLoopMs);
    add('3 engine second response + finish', worst.finishMs);
    add('4a runToolAttempt (no launch AbortController)', await toolAttempts(worst.prepared, false));
    add(
      '4b runToolAttempt + launch AbortController (as driveTurn)',
      await toolAttempts(worst.prepared, true),
    );
    add('5 MemoryJournal appends (structuredClone)', await journalAppends(worst.appends));
    add('6 new AbortController + 1 listener', abortControllers());
    appendCount = worst.appends.length;
  }
  process.stderr.write(`${mode}, ${calls} calls, median of ${rounds} (journal: ${appendCount} appends)\n`);
  for (const [key, values] of Object.entries(samples))
    process.stderr.write(`  ${key.padEnd(58)} ${us(median(values)).padStart(14)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

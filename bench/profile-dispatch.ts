/**
 * Runs the no-op dispatch turn repeatedly, for profiling (not part of the report):
 *
 *   node --cpu-prof --cpu-prof-dir=bench/results/prof --import tsx bench/profile-dispatch.ts
 *
 * Env: CALLS (default 1000), MODE (parallel|sequential), RUNS (default 20), WARMUP (default 5).
 * It also times the journal (a wrapper around MemoryJournal) and counts appends, so the share of a
 * turn spent persisting can be read without a profiler.
 */
import {
  InProcessExecutor,
  type JournalSession,
  MemoryJournal,
  type OpenJournalArgs,
  scriptedModel,
  type TurnJournal,
} from 'durable-turns';
import { TurnEngine } from '../core';
import { ExecutionCounter, noopCalls, noopTool } from './noop-tool';

const calls = Number(process.env.CALLS ?? 1_000);
const mode = process.env.MODE === 'sequential' ? 'sequential' : 'parallel';
const runs = Number(process.env.RUNS ?? 20);
const warmup = Number(process.env.WARMUP ?? 5);

/** Times every append of the wrapped journal. */
class TimedJournal implements TurnJournal {
  appends = 0;
  entries = 0;
  appendMs = 0;
  private readonly inner = new MemoryJournal();

  async open(args: OpenJournalArgs): Promise<JournalSession> {
    const session = await this.inner.open(args);
    return {
      turnId: session.turnId,
      owner: session.owner,
      fencingToken: session.fencingToken,
      load: () => session.load(),
      renew: () => session.renew(),
      release: () => session.release(),
      append: async (entries, expectedVersion) => {
        const started = performance.now();
        const version = await session.append(entries, expectedVersion);
        this.appendMs += performance.now() - started;
        this.appends += 1;
        this.entries += entries.length;
        return version;
      },
    };
  }
}

/** Counts the engine's `next()` calls (each scans the open batch), by wrapping the prototype method. */
let nextCalls = 0;
const originalNext = TurnEngine.prototype.next;
TurnEngine.prototype.next = function countedNext(this: TurnEngine, now: number) {
  nextCalls += 1;
  return originalNext.call(this, now);
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function main(): Promise<void> {
  const turnMs: number[] = [];
  const cpuMs: number[] = [];
  const appendMs: number[] = [];
  let counts = { appends: 0, entries: 0, next: 0 };
  for (let r = 0; r < warmup + runs; r++) {
    const counter = new ExecutionCounter();
    const journal = new TimedJournal();
    const executor = new InProcessExecutor({
      tools: [noopTool(counter)],
      model: scriptedModel([{ toolCalls: noopCalls(calls) }, { text: 'done' }]),
      dispatch: { mode, maxConcurrency: Math.max(1, calls) },
      detection: { enabled: false },
      journal,
    });
    nextCalls = 0;
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    const result = await executor.runTurn({ turnId: `profile-${r}`, input: 'go' });
    const elapsed = performance.now() - started;
    const cpu = process.cpuUsage(cpuStarted);
    if (result.status !== 'completed' || counter.count !== calls)
      throw new Error('turn did not run its calls');
    if (r < warmup) continue;
    turnMs.push(elapsed);
    cpuMs.push((cpu.user + cpu.system) / 1000);
    appendMs.push(journal.appendMs);
    counts = { appends: journal.appends, entries: journal.entries, next: nextCalls };
  }
  const turn = median(turnMs);
  const best = Math.min(...turnMs);
  // CPU time of this single-threaded loop: steadier than wall time on a shared machine.
  const cpu = median(cpuMs);
  const append = median(appendMs);
  process.stderr.write(
    `${mode} ${calls} calls: ${turn.toFixed(1)} ms/turn = ${((turn * 1000) / calls).toFixed(1)} µs/call; ` +
      `journal appends ${counts.appends} (${counts.entries} entries) took ${append.toFixed(1)} ms ` +
      `= ${((append * 1000) / calls).toFixed(1)} µs/call (${((100 * append) / turn).toFixed(0)}%); ` +
      `best ${((best * 1000) / calls).toFixed(1)} µs/call, CPU ${((cpu * 1000) / calls).toFixed(1)} µs/call; ` +
      `engine.next() called ${counts.next} times\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

import type { ProgressEntry, TurnWorkflowInput } from '../../contract/turn-workflow';
import {
  isTranscriptEvent,
  type JournalEntry,
  type ListedToolset,
  type TranscriptEvent,
  TurnEngine,
} from '../../core';
import { type CarriedTurn, type PackedCarry, type PackedChunks, unpackCarried } from './carried-turn';

/** Watchers read progress by query from this many recent entries. */
const progressWindow = 2_000;

/**
 * A workflow run's view of its turn: the engine, the transcript events so far (the result and the
 * next run are built from them), and a bounded window of recent entries for watchers.
 */
export interface TurnRecord {
  engine: TurnEngine;
  events: TranscriptEvent[];
  progress: ProgressEntry[];
  progressSeq(): number;
  record(entries: readonly JournalEntry[]): void;
  /** Chunks of earlier runs' events, passed on unchanged at the next continue-as-new. */
  carriedChunks?: PackedChunks;
  /** The tools the turn's MCP servers listed, once a worker pinned them (see `pinToolsetUpdate`). */
  toolset?: ListedToolset;
}

/**
 * Opens the turn for this run: from the carried state after continue-as-new, else a new engine
 * under `revision` (the rules the turn keeps for its whole life).
 */
export function openTurnRecord(input: TurnWorkflowInput, revision: () => number, now: number): TurnRecord {
  const carried: (CarriedTurn & { packedChunks: PackedChunks }) | undefined = input.carried
    ? unpackCarried({ head: input.carried, chunks: input.carriedChunks ?? [] })
    : undefined;
  const events: TranscriptEvent[] = carried ? carried.events : [];
  const progress: ProgressEntry[] = [];
  let seq = carried?.progressSeq ?? 0;
  const record = (produced: readonly JournalEntry[]) => {
    for (const entry of produced) {
      if (isTranscriptEvent(entry)) events.push(entry);
      seq += 1;
      progress.push({ seq, entry });
    }
    if (progress.length > progressWindow) progress.splice(0, progress.length - progressWindow);
  };
  let engine: TurnEngine;
  if (carried) engine = TurnEngine.restore(carried.snapshot);
  else {
    const started = TurnEngine.start({
      turnId: input.turnId,
      input: input.input,
      config: input.config,
      now,
      revision: revision(),
      ...(input.fork ? { fork: input.fork } : {}),
    });
    engine = started.engine;
    record(started.entries);
  }
  return {
    engine,
    events,
    progress,
    progressSeq: () => seq,
    record,
    ...(carried ? { carriedChunks: carried.packedChunks } : {}),
    ...(input.toolset ? { toolset: input.toolset } : {}),
  };
}

/** The next run's input: the turn so far, packed, and the tools it pinned. */
export function nextRunInput({
  input,
  turn,
  next,
}: {
  input: TurnWorkflowInput;
  turn: TurnRecord;
  next: PackedCarry;
}): TurnWorkflowInput {
  // A fork's record is in the carried events now: not carried twice.
  const { fork: _carriedInEvents, ...rest } = input;
  return {
    ...rest,
    run: input.run + 1,
    carried: next.head,
    carriedChunks: next.chunks,
    ...(turn.toolset ? { toolset: turn.toolset } : {}),
  };
}

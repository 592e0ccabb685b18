import { packJson, unpackJson } from '../../contract/packed-json';
import { messagesFromEvents, type StoredTurnSnapshot, type TranscriptEvent } from '../../core';
import { type CarriedEvents, compactCalls, expandCalls } from './carried-calls';

/**
 * What a turn takes into its next run at continue-as-new: the state snapshot and the transcript
 * events so far.
 */
export interface CarriedTurn {
  /** As the engine wrote it; one packed by older code may be in an older version (the engine restores those too). */
  snapshot: StoredTurnSnapshot;
  events: TranscriptEvent[];
  /** The sequence number of the last progress entry, so watchers see one sequence across runs. */
  progressSeq?: number;
}

/**
 * A carried turn in the form it crosses continue-as-new in: the state, packed, and the events in
 * packed chunks, one per earlier run, oldest first. A run passes on the chunks it was given as they
 * are and packs only its own events into a new one: packing the whole transcript at every
 * continue-as-new made each one cost more than the last (about 200 ms in the workflow sandbox by
 * 5,000 calls).
 */
export interface PackedCarry {
  head: string;
  chunks: string[];
}

/** The chunks a run was given, and how many of the turn's events (the first ones) they hold. */
export interface PackedChunks {
  chunks: readonly string[];
  eventCount: number;
}

/** The packed head. Fields added later are optional, so a turn packed by older code still unpacks. */
interface PackedTurn extends Partial<CarriedEvents> {
  snapshot: StoredTurnSnapshot;
  progressSeq?: number;
  notices?: Record<string, string>;
  /** The snapshot's call ids were left out: they are the ids of the events' calls, in order. */
  callIdsFromEvents?: boolean;
  /**
   * Written by older code: the whole-turn counts of the loop detector (snapshot version 1) by column.
   * Not put back: the windowed detector drops such counts when it restores (see `LoopDetector.restore`).
   */
  detectorCounts?: unknown;
}

/**
 * Packs a carried turn so that it holds what it must and little twice. The events (the whole
 * transcript, which `turn.result()` returns, so it grows with the turn) go in chunks, each call by
 * reference to its message (see `compactCalls`): those `earlier` already holds stay as they were,
 * the rest make one new chunk. The head holds the snapshot without its messages (rebuilt from the
 * events, with the engine's notices kept by call id) and, when the events already say them, without
 * its call ids. What remains is small and does not grow with the turn: the loop detector keeps only
 * its window.
 */
export function packCarried(
  carried: CarriedTurn,
  earlier: PackedChunks = { chunks: [], eventCount: 0 },
): PackedCarry {
  const { snapshot, events, progressSeq } = carried;
  const notices: Record<string, string> = {};
  for (const message of snapshot.messages) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) if (part.output.notice) notices[part.toolCallId] = part.output.notice;
  }
  // A background call's notice is on its delivered output, not on its placeholder.
  for (const { toolCallId, output } of snapshot.delivered ?? [])
    if (output.notice) notices[toolCallId] = output.notice;
  const callIdsFromEvents = sameList(callIdsOf(events), snapshot.callIds);
  const head: PackedTurn = {
    snapshot: {
      ...snapshot,
      messages: [],
      callIds: callIdsFromEvents ? [] : snapshot.callIds,
    },
    ...(progressSeq !== undefined ? { progressSeq } : {}),
    notices,
    callIdsFromEvents,
  };
  const fresh = events.slice(earlier.eventCount);
  return {
    head: packJson(head),
    chunks: fresh.length > 0 ? [...earlier.chunks, packJson(compactCalls(fresh))] : [...earlier.chunks],
  };
}

/**
 * The carried turn, and the chunks it came in (to pass on at the next continue-as-new). A head
 * as older code packed it (the events inside it, no chunks) unpacks too.
 */
export function unpackCarried({ head, chunks }: PackedCarry): CarriedTurn & { packedChunks: PackedChunks } {
  const {
    snapshot,
    progressSeq,
    notices,
    callIdsFromEvents,
    detectorCounts: _wholeTurnCounts,
    ...inHead
  } = unpackJson<PackedTurn>(head);
  const chunked = chunks.flatMap((chunk) => expandCalls(unpackJson<CarriedEvents>(chunk)));
  const events = [...chunked, ...expandCalls(inHead)];
  return {
    snapshot: {
      ...snapshot,
      messages: messagesFromEvents(events, notices),
      callIds: callIdsFromEvents ? callIdsOf(events) : snapshot.callIds,
    },
    events,
    ...(progressSeq !== undefined ? { progressSeq } : {}),
    // Events that came in the head (older code) are not in a chunk: the next one takes them.
    packedChunks: { chunks, eventCount: chunked.length },
  };
}

/** Every call the events name, in the order the turn accepted them. */
function callIdsOf(events: readonly TranscriptEvent[]): string[] {
  return events.flatMap((e) => (e.type === 'model.responded' ? e.calls.map((c) => c.toolCallId) : []));
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

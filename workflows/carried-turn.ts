import { messagesFromEvents, type TranscriptEvent, type TurnSnapshot } from '../core';
import { packJson, unpackJson } from './packed-json';

/**
 * What a turn takes into its next run at continue-as-new: the state snapshot and the transcript
 * events so far, packed (the next run's input is a single payload).
 */
export interface CarriedTurn {
  snapshot: TurnSnapshot;
  events: TranscriptEvent[];
  /** The sequence number of the last progress entry, so watchers see one sequence across runs. */
  progressSeq?: number;
}

/**
 * Packs a carried turn holding each output once: the messages are left out of the snapshot and
 * rebuilt from the events on the other side (with the engine's notices, kept by call id).
 */
export function packCarried(carried: CarriedTurn): string {
  const notices: Record<string, string> = {};
  for (const message of carried.snapshot.messages) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) if (part.output.notice) notices[part.toolCallId] = part.output.notice;
  }
  return packJson({ ...carried, snapshot: { ...carried.snapshot, messages: [] }, notices });
}

export function unpackCarried(packed: string): CarriedTurn {
  const carried = unpackJson<CarriedTurn & { notices: Record<string, string> }>(packed);
  const { notices, ...rest } = carried;
  return { ...rest, snapshot: { ...rest.snapshot, messages: messagesFromEvents(rest.events, notices) } };
}

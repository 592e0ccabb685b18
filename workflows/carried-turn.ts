import type { TranscriptEvent, TurnSnapshot } from '../core';
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

export function packCarried(carried: CarriedTurn): string {
  return packJson(carried);
}

export function unpackCarried(packed: string): CarriedTurn {
  return unpackJson<CarriedTurn>(packed);
}

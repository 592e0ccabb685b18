import type { JournalEntry } from '../../core';

/**
 * Where a turn's journal lives between steps. A journal is opened by one owner at a time: `open`
 * takes a lease and returns a session carrying a fencing token. Every append names the version it
 * expects (optimistic concurrency) and is refused when the session's token is no longer current —
 * that is what stops a paused, superseded host from writing after another host took the turn over.
 */
export interface TurnJournal {
  open(args: OpenJournalArgs): Promise<JournalSession>;
  /**
   * The turn's entries so far (none for a turn it does not hold), read without taking the lease:
   * `InProcessExecutor.watch` replays a finished turn this way. Optional, so journals written
   * before it still work; without it, watch follows only the turns its executor is running.
   */
  read?(args: { turnId: string }): Promise<JournalEntry[]>;
  /**
   * Removes an ended turn's entries and lease (a deleted conversation's turns). Refused while
   * another owner holds the lease. Optional: without it, conversations cannot be deleted.
   */
  delete?(args: { turnId: string; owner: string }): Promise<void>;
}

export interface OpenJournalArgs {
  turnId: string;
  /** Who is opening (host name, pid…): shown in the error a second owner gets. */
  owner: string;
  /** How long the lease lasts without renewal. Appends renew it. */
  leaseMs?: number;
  /** Take the lease over even if another owner still holds it (after a crash, by an operator). */
  takeOver?: boolean;
}

export interface JournalSession {
  readonly turnId: string;
  readonly owner: string;
  /** Grows by one every time anybody acquires this turn's lease. */
  readonly fencingToken: number;
  /** All entries so far and the version (= number of entries) they make up. */
  load(): Promise<{ entries: JournalEntry[]; version: number }>;
  /** Appends after `expectedVersion`; returns the new version. */
  append(entries: readonly JournalEntry[], expectedVersion: number): Promise<number>;
  /** Extends the lease without writing (a host waiting on a long tool call). Refused when the token is stale. */
  renew(): Promise<void>;
  /** Gives the lease up; later appends through this session are refused. */
  release(): Promise<void>;
}

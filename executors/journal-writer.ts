import {
  EntryObservers,
  isTranscriptEvent,
  type JournalEntry,
  type TranscriptEvent,
  type TurnObserver,
} from '../core';
import type { JournalSession } from './journal/turn-journal';

/**
 * Appends a turn's entries through its journal session, one append at a time, keeping the version
 * the next append expects. Entries reach observers once they are durable.
 */
export class JournalWriter {
  private readonly all: JournalEntry[];
  private readonly observers: EntryObservers;

  constructor(
    private readonly session: JournalSession,
    private version: number,
    existing: readonly JournalEntry[],
    observers: readonly TurnObserver[],
  ) {
    this.all = [...existing];
    this.observers = new EntryObservers({ observers });
  }

  async append(entries: readonly JournalEntry[]): Promise<void> {
    if (entries.length === 0) return;
    this.version = await this.session.append(entries, this.version);
    this.all.push(...entries);
    const { turnId } = this.session;
    for (const entry of entries) this.observers.notify({ turnId, entry });
  }

  renew(): Promise<void> {
    return this.session.renew();
  }

  release(): Promise<void> {
    return this.session.release();
  }

  transcriptEvents(): TranscriptEvent[] {
    return this.all.filter(isTranscriptEvent);
  }
}

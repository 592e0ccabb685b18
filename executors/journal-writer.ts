import {
  isTranscriptEvent,
  type JournalEntry,
  notifyObservers,
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

  constructor(
    private readonly session: JournalSession,
    private version: number,
    existing: readonly JournalEntry[],
    private readonly observers: readonly TurnObserver[],
  ) {
    this.all = [...existing];
  }

  async append(entries: readonly JournalEntry[]): Promise<void> {
    if (entries.length === 0) return;
    this.version = await this.session.append(entries, this.version);
    this.all.push(...entries);
    for (const entry of entries)
      notifyObservers(this.observers, 'onEntry', { turnId: this.session.turnId, entry });
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

import type { JournalEntry } from '../../core';
import { JournalError } from './journal-errors';
import type { JournalSession, OpenJournalArgs, TurnJournal } from './turn-journal';

interface Stored {
  entries: JournalEntry[];
  token: number;
  holder?: { owner: string; until: number };
}

const defaultLeaseMs = 30_000;

/** A journal in this process's memory: the default when no store is given. Same lease rules as SQLite. */
export class MemoryJournal implements TurnJournal {
  private readonly turns = new Map<string, Stored>();

  constructor(private readonly now: () => number = Date.now) {}

  async open({
    turnId,
    owner,
    leaseMs = defaultLeaseMs,
    takeOver = false,
  }: OpenJournalArgs): Promise<JournalSession> {
    const stored = this.turns.get(turnId) ?? { entries: [], token: 0 };
    this.turns.set(turnId, stored);
    const now = this.now();
    if (stored.holder && stored.holder.until > now && stored.holder.owner !== owner && !takeOver) {
      throw JournalError.leaseHeld(turnId, stored.holder.owner, stored.holder.until);
    }
    stored.token += 1;
    stored.holder = { owner, until: now + leaseMs };
    const token = stored.token;
    let released = false;
    const guard = () => {
      if (released) throw JournalError.released(turnId);
      if (stored.token !== token) throw JournalError.staleFence(turnId, token, stored.token);
    };
    return {
      turnId,
      owner,
      fencingToken: token,
      load: async () => {
        guard();
        return { entries: structuredClone(stored.entries), version: stored.entries.length };
      },
      append: async (entries, expectedVersion) => {
        guard();
        if (stored.entries.length !== expectedVersion) {
          throw JournalError.versionConflict(turnId, expectedVersion, stored.entries.length);
        }
        // Entries are plain data nobody mutates after recording; copies are made on the way out.
        stored.entries.push(...entries);
        stored.holder = { owner, until: this.now() + leaseMs };
        return stored.entries.length;
      },
      renew: async () => {
        guard();
        stored.holder = { owner, until: this.now() + leaseMs };
      },
      release: async () => {
        if (released) return;
        released = true;
        if (stored.token === token) stored.holder = undefined;
      },
    };
  }

  async read({ turnId }: { turnId: string }): Promise<JournalEntry[]> {
    return this.entries(turnId);
  }

  async delete({ turnId, owner }: { turnId: string; owner: string }): Promise<void> {
    const holder = this.turns.get(turnId)?.holder;
    if (holder && holder.until > this.now() && holder.owner !== owner)
      throw JournalError.leaseHeld(turnId, holder.owner, holder.until);
    const stored = this.turns.get(turnId);
    if (!stored) return;
    // Sessions opened before the delete are fenced off; the token goes on from here, as in SQLite.
    stored.token += 1;
    stored.entries = [];
    stored.holder = undefined;
  }

  /** Entries of a turn, for inspection and tests. */
  entries(turnId: string): JournalEntry[] {
    return structuredClone(this.turns.get(turnId)?.entries ?? []);
  }
}

import type Database from 'better-sqlite3';
import { z } from 'zod';
import type { EncryptionKeys } from '../../codec/encryption-keys';
import { isSealed, openText, sealText } from '../../codec/seal-text';
import type { JournalEntry } from '../../core';
import { journalEntrySchema } from '../../core/schema/journal-entry';
import { JournalError } from './journal-errors';
import { openSqliteDatabase } from './open-sqlite-database';
import type { JournalSession, OpenJournalArgs, TurnJournal } from './turn-journal';

export interface SqliteJournalOptions {
  /** A SQLite file, shared by every host that may run the turn; `':memory:'` for one connection. */
  path: string;
  now?: () => number;
  /**
   * Encrypt entries at rest with these keys (`parseEncryptionKeys` / `encryptionKeysFromEnv`, the
   * same as the Temporal payload codec's): off by default. Rows written before it was turned on
   * still read; a key rotation needs no rewrite (old keys stay listed).
   */
  encryption?: EncryptionKeys;
}

interface LeaseRow {
  owner: string | null;
  fencing_token: number;
  lease_until: number;
}

const defaultLeaseMs = 30_000;
/** How long a write waits for another process's transaction before SQLite reports it busy. */
const busyTimeoutMs = 5_000;

/**
 * A journal in a SQLite file, safe to share between processes. Same lease rules as `MemoryJournal`.
 *
 * Invariants: a turn's entries are rows `(turn_id, seq)` with `seq` = 0, 1, 2… so the version is the
 * row count; the lease row's `fencing_token` only grows. Every write runs in one IMMEDIATE
 * transaction (the write lock is taken before the checks), so checking the token and the version
 * and then inserting cannot interleave with another host doing the same.
 */
export class SqliteJournal implements TurnJournal {
  private readonly db: Database.Database;
  private readonly now: () => number;
  private readonly encryption: EncryptionKeys | undefined;

  constructor({ path, now = Date.now, encryption }: SqliteJournalOptions) {
    this.now = now;
    this.encryption = encryption;
    this.db = openSqliteDatabase({ path, timeoutMs: busyTimeoutMs });
    this.db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    this.db.pragma('journal_mode = WAL');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS turn_entries (
        turn_id TEXT NOT NULL, seq INTEGER NOT NULL, entry_json TEXT NOT NULL, PRIMARY KEY (turn_id, seq)
      );
      CREATE TABLE IF NOT EXISTS turn_leases (
        turn_id TEXT PRIMARY KEY, owner TEXT, fencing_token INTEGER NOT NULL, lease_until INTEGER NOT NULL
      );
    `);
  }

  async open({
    turnId,
    owner,
    leaseMs = defaultLeaseMs,
    takeOver = false,
  }: OpenJournalArgs): Promise<JournalSession> {
    const acquire = this.db.transaction((): number => {
      const lease = this.lease(turnId);
      const now = this.now();
      if (lease?.owner && lease.lease_until > now && lease.owner !== owner && !takeOver) {
        throw JournalError.leaseHeld(turnId, lease.owner, lease.lease_until);
      }
      const token = (lease?.fencing_token ?? 0) + 1;
      this.db
        .prepare(
          `INSERT INTO turn_leases (turn_id, owner, fencing_token, lease_until) VALUES (?, ?, ?, ?)
           ON CONFLICT (turn_id) DO UPDATE SET owner = excluded.owner,
             fencing_token = excluded.fencing_token, lease_until = excluded.lease_until`,
        )
        .run(turnId, owner, token, now + leaseMs);
      return token;
    });
    const token = acquire.immediate();
    let released = false;
    /** Throws unless this session still holds the lease; call inside a transaction. */
    const guard = () => {
      if (released) throw JournalError.released(turnId);
      const current = this.lease(turnId)?.fencing_token ?? 0;
      if (current !== token) throw JournalError.staleFence(turnId, token, current);
    };
    const extend = () => {
      this.db
        .prepare('UPDATE turn_leases SET lease_until = ? WHERE turn_id = ?')
        .run(this.now() + leaseMs, turnId);
    };
    const load = this.db.transaction(() => {
      guard();
      const entries = this.entries(turnId);
      return { entries, version: entries.length };
    });
    const append = this.db.transaction(
      (entries: readonly JournalEntry[], expectedVersion: number): number => {
        guard();
        const version = this.count(turnId);
        if (version !== expectedVersion) throw JournalError.versionConflict(turnId, expectedVersion, version);
        const insert = this.db.prepare(
          'INSERT INTO turn_entries (turn_id, seq, entry_json) VALUES (?, ?, ?)',
        );
        for (const [i, entry] of entries.entries())
          insert.run(
            turnId,
            version + i,
            this.stored({ turnId, seq: version + i, json: JSON.stringify(entry) }),
          );
        extend();
        return version + entries.length;
      },
    );
    const renew = this.db.transaction(() => {
      guard();
      extend();
    });
    const release = this.db.transaction(() => {
      this.db
        .prepare(
          'UPDATE turn_leases SET owner = NULL, lease_until = 0 WHERE turn_id = ? AND fencing_token = ?',
        )
        .run(turnId, token);
    });
    return {
      turnId,
      owner,
      fencingToken: token,
      load: async () => load(),
      append: async (entries, expectedVersion) => append.immediate(entries, expectedVersion),
      renew: async () => renew.immediate(),
      release: async () => {
        if (released) return;
        released = true;
        release.immediate();
      },
    };
  }

  async read({ turnId }: { turnId: string }): Promise<JournalEntry[]> {
    return this.entries(turnId);
  }

  async delete({ turnId, owner }: { turnId: string; owner: string }): Promise<void> {
    const remove = this.db.transaction(() => {
      const lease = this.lease(turnId);
      if (lease?.owner && lease.lease_until > this.now() && lease.owner !== owner)
        throw JournalError.leaseHeld(turnId, lease.owner, lease.lease_until);
      this.db.prepare('DELETE FROM turn_entries WHERE turn_id = ?').run(turnId);
      // The lease row stays, released, with its fencing token moved on: a session opened before
      // the delete must not pass for one opened after it (tokens would start again at 1).
      this.db
        .prepare(
          'UPDATE turn_leases SET owner = NULL, lease_until = 0, fencing_token = fencing_token + 1 WHERE turn_id = ?',
        )
        .run(turnId);
    });
    remove.immediate();
  }

  /** Turns that have entries or a holder, for inspection (not deleted ones). */
  listTurns(): string[] {
    const rows = this.db
      .prepare(
        'SELECT turn_id FROM turn_leases WHERE owner IS NOT NULL UNION SELECT turn_id FROM turn_entries ORDER BY turn_id',
      )
      .pluck()
      .all();
    return rows.map(String);
  }

  close(): void {
    this.db.close();
  }

  /** A row's text as stored: sealed to its place (turn and seq) when encryption is on. */
  private stored({ turnId, seq, json }: { turnId: string; seq: number; json: string }): string {
    return this.encryption
      ? sealText({ keys: this.encryption, text: json, context: `${turnId}\n${seq}` })
      : json;
  }

  private readable({ turnId, seq, text }: { turnId: string; seq: number; text: string }): string {
    return isSealed(text)
      ? openText({ keys: this.encryption, sealed: text, context: `${turnId}\n${seq}` })
      : text;
  }

  private lease(turnId: string): LeaseRow | undefined {
    return this.db
      .prepare('SELECT owner, fencing_token, lease_until FROM turn_leases WHERE turn_id = ?')
      .get(turnId) as LeaseRow | undefined;
  }

  private count(turnId: string): number {
    return Number(this.db.prepare('SELECT COUNT(*) FROM turn_entries WHERE turn_id = ?').pluck().get(turnId));
  }

  /** Every stored entry, validated: a row that is not a journal entry is named, not skipped. */
  private entries(turnId: string): JournalEntry[] {
    const rows = this.db
      .prepare('SELECT seq, entry_json FROM turn_entries WHERE turn_id = ? ORDER BY seq')
      .all(turnId) as { seq: number; entry_json: string }[];
    return rows.map(({ seq, entry_json }) => {
      // A key this process lacks is said as such (naming the key id), not as a corrupt row.
      const text = this.readable({ turnId, seq, text: entry_json });
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (cause) {
        throw corrupt(turnId, seq, 'it is not JSON', cause);
      }
      const result = journalEntrySchema.safeParse(parsed);
      if (!result.success) throw corrupt(turnId, seq, z.prettifyError(result.error), result.error);
      return result.data;
    });
  }
}

function corrupt(turnId: string, seq: number, why: string, cause: unknown): Error {
  return new Error(
    `turn ${turnId}: journal entry seq ${seq} in turn_entries is corrupt (${why}); ` +
      'restore the file from a backup or delete the turn — entries are never skipped',
    { cause },
  );
}

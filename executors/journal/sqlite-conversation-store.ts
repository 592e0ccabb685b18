import type Database from 'better-sqlite3';
import type { EncryptionKeys } from '../../codec/encryption-keys';
import { isSealed, openText, sealText } from '../../codec/seal-text';
import { type ConversationState, conversationStateSchema, formatIssues } from '../../core';
import { ConversationConflictError, type ConversationStore } from '../conversation/conversation-store';
import { openSqliteDatabase } from './open-sqlite-database';

/** How long a write waits for another process's transaction before SQLite reports it busy. */
const busyTimeoutMs = 5_000;

/**
 * Conversations in a SQLite file (the turn journal's, or any): one row per conversation, its state
 * as JSON, sealed when encryption is on (it holds users' waiting messages). Each save checks and
 * bumps the row's version in one IMMEDIATE transaction.
 */
export class SqliteConversationStore implements ConversationStore {
  private readonly db: Database.Database;

  constructor(private readonly options: { path: string; encryption?: EncryptionKeys }) {
    this.db = openSqliteDatabase({ path: options.path, timeoutMs: busyTimeoutMs });
    this.db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    this.db.pragma('journal_mode = WAL');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS conversations (
        conversation_id TEXT PRIMARY KEY, version INTEGER NOT NULL, state_json TEXT NOT NULL
      );
    `);
  }

  async load(conversationId: string): Promise<{ state?: ConversationState; version: number }> {
    const row = this.row(conversationId);
    if (!row) return { version: 0 };
    const text = isSealed(row.state_json)
      ? openText({ keys: this.options.encryption, sealed: row.state_json, context: conversationId })
      : row.state_json;
    const parsed = conversationStateSchema.safeParse(JSON.parse(text));
    if (!parsed.success)
      throw new Error(
        `conversation ${conversationId}: its row in conversations is corrupt (${formatIssues(parsed.error)}); restore the file from a backup`,
      );
    return { state: parsed.data, version: row.version };
  }

  async save(conversationId: string, state: ConversationState, expectedVersion: number): Promise<number> {
    const json = JSON.stringify(state);
    const { encryption } = this.options;
    const stored = encryption ? sealText({ keys: encryption, text: json, context: conversationId }) : json;
    const write = this.db.transaction((): number => {
      const version = this.row(conversationId)?.version ?? 0;
      if (version !== expectedVersion)
        throw new ConversationConflictError(conversationId, expectedVersion, version);
      this.db
        .prepare(
          `INSERT INTO conversations (conversation_id, version, state_json) VALUES (?, ?, ?)
           ON CONFLICT (conversation_id) DO UPDATE SET version = excluded.version, state_json = excluded.state_json`,
        )
        .run(conversationId, version + 1, stored);
      return version + 1;
    });
    return write.immediate();
  }

  async delete(conversationId: string, expectedVersion: number): Promise<void> {
    const remove = this.db.transaction(() => {
      const version = this.row(conversationId)?.version ?? 0;
      if (version !== expectedVersion)
        throw new ConversationConflictError(conversationId, expectedVersion, version);
      this.db.prepare('DELETE FROM conversations WHERE conversation_id = ?').run(conversationId);
    });
    remove.immediate();
  }

  async list(): Promise<string[]> {
    return this.db
      .prepare('SELECT conversation_id FROM conversations ORDER BY conversation_id')
      .pluck()
      .all()
      .map(String);
  }

  close(): void {
    this.db.close();
  }

  private row(conversationId: string): { version: number; state_json: string } | undefined {
    return this.db
      .prepare('SELECT version, state_json FROM conversations WHERE conversation_id = ?')
      .get(conversationId) as { version: number; state_json: string } | undefined;
  }
}

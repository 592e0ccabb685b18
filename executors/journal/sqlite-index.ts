/**
 * `durable-turns/sqlite`: the SQLite journal, which makes in-process turns resumable after a
 * crash (a fenced lease, one row per entry). Its own entry point, so only users who want it load
 * the native `better-sqlite3` module.
 */

export * from './sqlite-conversation-store';
export * from './sqlite-journal';

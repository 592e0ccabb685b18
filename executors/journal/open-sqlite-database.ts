import type Database from 'better-sqlite3';

const installHint =
  'durable-turns/sqlite needs better-sqlite3 12 (an optional peer dependency): `npm install better-sqlite3@12`, ' +
  'and let its install script build the native module — npm 11 runs only approved scripts, so add ' +
  '`"allowScripts": { "better-sqlite3": true }` to your package.json (then `npm rebuild better-sqlite3`).';

/**
 * Opens a SQLite database with better-sqlite3, loaded only here: it is an optional peer, so users
 * who never journal to SQLite install no native module. A missing package or a native module whose
 * build was skipped (npm 11's unapproved install scripts) fails with the fix, not a stack of
 * `bindings` internals.
 */
export function openSqliteDatabase({
  path,
  timeoutMs,
}: {
  path: string;
  timeoutMs: number;
}): Database.Database {
  let open: typeof Database;
  try {
    open = require('better-sqlite3') as typeof Database;
  } catch (error) {
    throw new Error(`better-sqlite3 is not installed. ${installHint}`, { cause: error });
  }
  try {
    return new open(path, { timeout: timeoutMs });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/bindings file|better_sqlite3\.node|NODE_MODULE_VERSION|invalid ELF/i.test(message))
      throw new Error(
        `better-sqlite3's native module cannot be loaded (${message.split('\n')[0]}). ${installHint}`,
        {
          cause: error,
        },
      );
    throw error;
  }
}

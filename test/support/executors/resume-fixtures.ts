import Database from 'better-sqlite3';
import {
  defineTool,
  type JournalEntry,
  JournalError,
  journalEntrySchema,
  scriptedModel,
} from 'durable-turns';
import { z } from 'zod';

/** The entries in a journal file, read without taking the turn's lease. */
export function storedEntries(path: string, turnId: string): JournalEntry[] {
  const db = new Database(path, { readonly: true });
  try {
    const rows = db
      .prepare('SELECT entry_json FROM turn_entries WHERE turn_id = ? ORDER BY seq')
      .pluck()
      .all(turnId);
    return rows.map((row) => journalEntrySchema.parse(JSON.parse(String(row))));
  } finally {
    db.close();
  }
}

/** Awaits an operation that must be refused by the journal and returns the JournalError. */
export async function refusal(operation: Promise<unknown>): Promise<JournalError> {
  const error = await operation.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!JournalError.isInstance(error)) throw new Error(`expected a JournalError, got ${String(error)}`);
  return error;
}

/** A tool that holds until the test opens its gate; `started` resolves when it is running. */
export function gatedTool() {
  let open = () => {};
  let markStarted = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const started = new Promise<void>((resolve) => {
    markStarted = resolve;
  });
  const tool = defineTool({
    name: 'wait_for_gate',
    description: 'Waits for the test',
    input: z.object({}),
    concurrencySafe: true,
    retrySafe: true,
    execute: async () => {
      markStarted();
      await gate;
      return 'through';
    },
  });
  return { tool, started, open };
}

/** A model that asks for one gated call, then answers `done`. */
export const gatedScript = () =>
  scriptedModel([{ toolCalls: [{ id: 'g1', name: 'wait_for_gate', args: {} }] }, { text: 'done' }]);

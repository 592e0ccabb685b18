/**
 * A separate host racing for a turn's lease, for sqlite-journal.test.ts:
 * `tsx lease-child.ts <file> <owner> <turnId>`. It opens the journal, prints `ready`, waits for a
 * `go` line on stdin (so racers start together), opens the turn, prints one JSON line with the
 * outcome and exits without releasing — the winner's lease stays for the parent to inspect.
 */
import { createInterface } from 'node:readline';
import { JournalError } from '../../executors/journal/journal-errors';
import { SqliteJournal } from '../../executors/journal/sqlite-journal';

export type LeaseChildOutcome =
  | { kind: 'acquired'; owner: string; fencingToken: number }
  | { kind: 'refused'; owner: string; code: string; message: string };

async function main([path, owner, turnId]: string[]): Promise<void> {
  if (!path || !owner || !turnId) throw new Error('usage: lease-child.ts <file> <owner> <turnId>');
  const journal = new SqliteJournal({ path });
  const lines = createInterface({ input: process.stdin });
  const go = new Promise<void>((resolve) => lines.on('line', (line) => line === 'go' && resolve()));
  process.stdout.write('ready\n');
  await go;
  lines.close();
  let outcome: LeaseChildOutcome;
  try {
    const session = await journal.open({ turnId, owner, leaseMs: 60_000 });
    outcome = { kind: 'acquired', owner, fencingToken: session.fencingToken };
  } catch (error) {
    if (!JournalError.isInstance(error)) throw error;
    outcome = { kind: 'refused', owner, code: error.code, message: error.message };
  }
  journal.close();
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});

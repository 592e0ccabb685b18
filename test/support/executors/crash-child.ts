/**
 * A host that dies mid-wave, for resume.test.ts: `tsx crash-child.ts <sqlite file> <ledger> <turnId>`.
 * It runs the crash turn (see crash-turn.ts) on a SqliteJournal as owner `crashed-host` and prints
 * `READY <pid>` once both slow calls have started and both fast calls' outcomes are durable in the
 * journal. The slow calls then sleep for minutes: the parent SIGKILLs `<pid>` long before.
 */
import { InProcessExecutor, type JournalEntry } from 'durable-turns';
import { SqliteJournal } from '../../../executors/journal/sqlite-journal';
import { crashedOwner, crashInput, crashScript, crashTools, fastIds } from './crash-turn';

async function main([path, ledger, turnId]: string[]): Promise<void> {
  if (!path || !ledger || !turnId) throw new Error('usage: crash-child.ts <sqlite file> <ledger> <turnId>');
  const slowStarted = new Set<string>();
  const fastDurable = new Set<string>();
  let announced = false;
  const announce = () => {
    if (announced || slowStarted.size < 2 || fastDurable.size < fastIds.length) return;
    announced = true;
    process.stdout.write(`READY ${process.pid}\n`);
  };
  const onEntry = ({ entry }: { entry: JournalEntry }) => {
    if (entry.type === 'tool.attempt_finished' && (fastIds as readonly string[]).includes(entry.toolCallId)) {
      fastDurable.add(entry.toolCallId);
      announce();
    }
  };
  const executor = new InProcessExecutor({
    tools: crashTools({
      ledger,
      slowMs: 10 * 60_000,
      onSlowStart: (toolCallId) => {
        slowStarted.add(toolCallId);
        announce();
      },
    }),
    model: crashScript(),
    journal: new SqliteJournal({ path }),
    owner: crashedOwner,
    observers: [{ onEntry }],
  });
  await executor.runTurn({ turnId, input: crashInput });
  process.stdout.write('FINISHED\n');
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});

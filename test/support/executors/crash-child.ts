/**
 * A host that dies mid-wave, for resume.test.ts: `tsx crash-child.ts <sqlite file> <ledger> <turnId>`.
 * It runs the crash turn (see crash-turn.ts) on a SqliteJournal as owner `crashed-host` and prints
 * `READY <pid>` once the response is recorded, both slow calls have started and both fast calls'
 * outcomes are durable in the journal. The slow calls then sleep for minutes: the parent SIGKILLs `<pid>` long before.
 */
import { InProcessExecutor, type JournalEntry } from 'durable-turns';
import { SqliteJournal } from '../../../executors/journal/sqlite-journal';
import { crashedOwner, crashInput, crashScript, crashTools, fastIds } from './crash-turn';

async function main([path, ledger, turnId, mode]: string[]): Promise<void> {
  if (!path || !ledger || !turnId)
    throw new Error('usage: crash-child.ts <sqlite file> <ledger> <turnId> [background]');
  const background = mode === 'background';
  const slowStarted = new Set<string>();
  const fastDurable = new Set<string>();
  let announced = false;
  // The response is recorded whole before the host dies: calls start while it streams, and a
  // host lost mid-stream leaves a partial response instead (a different crash).
  let responded = false;
  const announce = () => {
    if (announced || !responded || slowStarted.size < 2 || fastDurable.size < fastIds.length) return;
    announced = true;
    process.stdout.write(`READY ${process.pid}\n`);
  };
  const onEntry = ({ entry }: { entry: JournalEntry }) => {
    // In the background variant, the host dies once the model is done and the turn waits for them.
    if (entry.type === (background ? 'background.waiting' : 'model.responded')) {
      responded = true;
      announce();
    }
    if (entry.type === 'tool.attempt_finished' && (fastIds as readonly string[]).includes(entry.toolCallId)) {
      fastDurable.add(entry.toolCallId);
      announce();
    }
  };
  const executor = new InProcessExecutor({
    tools: crashTools({
      ledger,
      slowMs: 10 * 60_000,
      background,
      onSlowStart: (toolCallId) => {
        slowStarted.add(toolCallId);
        announce();
      },
    }),
    model: crashScript({ background }),
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

/**
 * A host that dies mid-conversation, for in-process-conversation-resume.test.ts:
 * `conversation-crash-child.ts <sqlite file> <conversationId>`. It drives the conversation of
 * conversation-crash.ts on a SqliteJournal and a SqliteConversationStore in that file, and prints
 * `READY <pid>` once turn 1 has ended, turn 2's slow call has started and message `m3` is queued.
 */
import { InProcessConversations, InProcessExecutor } from 'durable-turns';
import { SqliteConversationStore } from '../../../executors/journal/sqlite-conversation-store';
import { SqliteJournal } from '../../../executors/journal/sqlite-journal';
import {
  conversationCrashModel,
  conversationCrashTools,
  crashedConversationOwner,
} from './conversation-crash';

async function main([path, conversationId]: string[]): Promise<void> {
  if (!path || !conversationId)
    throw new Error('usage: conversation-crash-child.ts <sqlite file> <conversationId>');
  let slowStarted!: () => void;
  const started = new Promise<void>((resolve) => {
    slowStarted = resolve;
  });
  const executor = new InProcessExecutor({
    tools: conversationCrashTools({ slowMs: 10 * 60_000, onStart: () => slowStarted() }),
    model: conversationCrashModel(),
    journal: new SqliteJournal({ path }),
    owner: crashedConversationOwner,
    blobStore: false,
    tracing: false,
  });
  const conversations = new InProcessConversations({
    executor,
    store: new SqliteConversationStore({ path }),
  });
  await conversations.send(conversationId, 'hello', { messageId: 'm1' });
  await conversations.idle(conversationId);
  await conversations.send(conversationId, 'wait', { messageId: 'm2' });
  await started;
  await conversations.send(conversationId, 'after that', { messageId: 'm3' });
  process.stdout.write(`READY ${process.pid}\n`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});

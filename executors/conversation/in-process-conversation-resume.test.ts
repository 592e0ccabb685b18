import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  InProcessConversations,
  InProcessExecutor,
  MemoryConversationStore,
  MemoryJournal,
} from 'durable-turns';
import {
  conversationCrashModel,
  conversationCrashTools,
  crashedConversationOwner,
} from '../../test/support/executors/conversation-crash';
import { startReadyChild } from '../../test/support/executors/crash-child-process';
import { SqliteConversationStore } from '../journal/sqlite-conversation-store';
import { SqliteJournal } from '../journal/sqlite-journal';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'conversation-resume-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const user = (content: string) => ({ role: 'user', content });

describe('an in-process conversation whose host was killed mid-turn', () => {
  it('is carried on from its SQLite file: the running turn resumes with a true output for its lost call, what waited runs after it, and a retried send is still the same message', async () => {
    const path = join(dir, 'conversations.db');
    const id = 'crashed-conversation';
    const child = startReadyChild({
      script: join(__dirname, '../../test/support/executors/conversation-crash-child.ts'),
      args: [path, id],
    });
    try {
      process.kill(await child.ready, 'SIGKILL');
      await child.exited;
    } finally {
      child.killGroup();
    }

    const journal = new SqliteJournal({ path });
    const store = new SqliteConversationStore({ path });
    try {
      const model = conversationCrashModel();
      const executor = new InProcessExecutor({
        tools: conversationCrashTools({ slowMs: 10 }),
        model,
        journal,
        owner: 'recovery-host',
        blobStore: false,
        tracing: false,
      });
      const conversations = new InProcessConversations({ executor, store });
      // Not resumed yet: a send says what to do rather than start a second turn beside the lost one.
      await expect(conversations.send(id, 'hello?', { messageId: 'm4' })).rejects.toThrow(
        `conversation ${id} has turn ${id}#2 running, not on this host: resume the conversation here (resume) once the host that ran it is gone`,
      );
      // The dead host's lease on the turn has not lapsed: taking over is the operator's call.
      await expect(conversations.resume(id)).rejects.toThrow(crashedConversationOwner);
      const again = new InProcessConversations({ executor, store });
      await again.resume(id, { takeOver: true });
      expect(await again.send(id, 'wait', { messageId: 'm2' })).toEqual({
        messageId: 'm2',
        status: 'started',
        turnId: `${id}#2`,
      });
      await again.idle(id);

      const second = await again.turnResult(id, 2);
      expect(second.outputs).toEqual([
        expect.objectContaining({
          toolCallId: 'slow-call',
          status: 'interrupted',
          errorType: 'outcome-unknown',
        }),
      ]);
      expect(second.text).toBe('after the call, answer to wait');
      const third = await again.turnResult(id, 3);
      expect(third.text).toBe('answer to after that');
      // Turn 3 sent the two turns before it first (one from the dead host's journal), then its message.
      const request = model.requests.find((r) => r.turnId === `${id}#3`);
      expect(request?.messages.filter((m) => m.role === 'user')).toEqual([
        user('hello'),
        user('wait'),
        user('after that'),
      ]);
      expect(await again.state(id)).toMatchObject({ turnCount: 3, received: 3, queue: [], next: [] });
    } finally {
      journal.close();
      store.close();
    }
  });
});

describe('an in-process conversation', () => {
  it('starts again a turn that was recorded as started but never wrote a word (its host died in between)', async () => {
    const store = new MemoryConversationStore();
    const id = 'lost-before-start';
    await store.save(
      id,
      {
        conversationId: id,
        closed: false,
        turnCount: 1,
        received: 1,
        running: {
          turnId: `${id}#1`,
          messages: [{ messageId: 'm1', message: { role: 'user', content: 'hello' }, seq: 0 }],
          cancelling: false,
          steers: [],
        },
        next: [],
        queue: [],
        receipts: [{ messageId: 'm1', status: 'started', turnId: `${id}#1` }],
      },
      0,
    );
    const executor = new InProcessExecutor({
      tools: conversationCrashTools({ slowMs: 10 }),
      model: conversationCrashModel(),
      journal: new MemoryJournal(),
      blobStore: false,
      tracing: false,
    });
    const conversations = new InProcessConversations({ executor, store });
    await conversations.resume(id);
    await conversations.idle(id);
    expect((await conversations.turnResult(id, 1)).text).toBe('answer to hello');
  });

  it('refuses a save from a host that is behind: another host changed the conversation meanwhile', async () => {
    const store = new MemoryConversationStore();
    const executor = new InProcessExecutor({
      tools: conversationCrashTools({ slowMs: 10 }),
      model: conversationCrashModel(),
      blobStore: false,
      tracing: false,
    });
    const first = new InProcessConversations({ executor, store });
    const second = new InProcessConversations({ executor, store });
    await first.state('shared');
    await second.send('shared', 'hello', { messageId: 'm1' });
    await second.idle('shared');
    await expect(first.send('shared', 'hi', { messageId: 'm2' })).rejects.toMatchObject({
      code: 'conversation-conflict',
    });
  });
});

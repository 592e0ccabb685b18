import { temporal } from '@temporalio/proto';
import type { Worker } from '@temporalio/worker';
import type { Message } from 'durable-turns';
import { ConversationClient } from 'durable-turns/client';
import {
  conversationApprovals,
  conversationCases,
  conversationHooks,
  conversationModel,
  conversationTools,
} from '../conformance/conversation.cases';
import { uniqueTurnId } from '../conformance/support';
import { TemporalKit } from './support/kit';
import { pollFor } from './support/poll';

const kit = new TemporalKit();
const taskQueue = kit.taskQueue('conversation');
const model = conversationModel;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  await kit.open();
  worker = await kit.worker({ taskQueue, tools: conversationTools, model, conversationHooks });
  running = worker.run();
});
afterAll(async () => {
  worker?.shutdown();
  await running;
  await kit.close();
});

/** Whether the workflow's history, as the server stores it, holds `text` anywhere. */
async function historyHolds(workflowId: string, text: string): Promise<boolean> {
  const events =
    (await kit.client(taskQueue).client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  return events.some((event) =>
    Buffer.from(temporal.api.history.v1.HistoryEvent.encode(event).finish()).includes(text),
  );
}

/** Turn `n` of the conversation once its workflow exists (a queued message's turn starts later). */
async function turnStarted(client: ConversationClient, id: string, n: number) {
  const handle = client.turn(id, n);
  // closedAt() describes the workflow: it throws until the workflow exists.
  await pollFor(`turn ${n} of ${id} to start`, async () => {
    await handle.closedAt();
    return true;
  });
  return handle;
}

const conversations = () => new ConversationClient(kit.client(taskQueue));
const turn = { model: 'scripted', approvals: conversationApprovals };
const user = (content: string): Message => ({ role: 'user', content });

conversationCases({
  name: 'temporal',
  send: (id, message, { compaction, ...options }) =>
    conversations().send(id, message, {
      ...options,
      turn: { ...turn, ...(compaction ? { compaction } : {}) },
    }),
  turnResult: async (id, n) => (await turnStarted(conversations(), id, n)).result(),
  state: (id) => conversations().state(id),
  transcript: (id) => conversations().transcript(id),
  close: (id) => conversations().close(id),
  delete: (id) => conversations().delete(id),
  watch: (id) => conversations().watch(id, { live: false }),
  list: async () =>
    (await conversations().list({ search: 'conv-', pageSize: 1_000 })).conversations.map(
      (c) => c.conversationId,
    ),
  grant: (id, grant) => conversations().grant(id, grant),
  revoke: (id, grantId) => conversations().revoke(id, grantId),
  branch: (from, to) => conversations().branch(from, { ...to, turn }),
});

describe('a conversation on Temporal', () => {
  test('a later turn reads the earlier ones by reference: their outputs are in their own histories, not in its', async () => {
    const client = conversations();
    const id = uniqueTurnId('conv-ref');
    await client.send(id, 'first', { messageId: 'm1', turn });
    await (await turnStarted(client, id, 1)).result();
    await client.send(id, 'second', { messageId: 'm2', turn });
    expect((await (await turnStarted(client, id, 2)).result()).text).toBe('answer to second');
    expect(await historyHolds(`${id}#1`, 'answer to first')).toBe(true);
    expect(await historyHolds(`${id}#2`, 'answer to first')).toBe(false);
  });

  test('a long conversation continues as new between turns: the queue and what each message became go with it', async () => {
    const client = conversations();
    const id = uniqueTurnId('conv-long');
    const options = { turn, continueAsNewAfterEvents: 10 };
    for (let n = 1; n <= 4; n++) {
      const receipt = await client.send(id, `message ${n}`, { messageId: `m${n}`, ...options });
      // The turn before has a result, but the conversation may hear of its end a moment later: then
      // the message waits for it, and starts its turn once it does.
      expect([
        { messageId: `m${n}`, status: 'started', turnId: `${id}#${n}` },
        { messageId: `m${n}`, status: 'queued', ahead: 1 },
      ]).toContainEqual(receipt);
      expect((await (await turnStarted(client, id, n)).result()).text).toBe(`answer to message ${n}`);
    }
    const runs = [];
    for await (const run of kit
      .client(taskQueue)
      .client.workflow.list({ query: `WorkflowId = 'conversation:${id}'` }))
      runs.push(run.status.name);
    expect(runs.filter((status) => status === 'CONTINUED_AS_NEW').length).toBeGreaterThan(0);
    // A retry of the first message, runs later, is still the same message.
    expect(await client.send(id, 'message 1', { messageId: 'm1', ...options })).toEqual({
      messageId: 'm1',
      status: 'started',
      turnId: `${id}#1`,
    });
    const last = model.requests.find((r) => r.turnId === `${id}#4`);
    expect(last?.messages.filter((m) => m.role === 'user')).toEqual(
      [1, 2, 3, 4].map((n) => user(`message ${n}`)),
    );
  });

  test('a closed conversation whose workflow has ended refuses a send the same way: its id is not started again', async () => {
    const client = conversations();
    const id = uniqueTurnId('conv-closed-ended');
    await client.send(id, 'hello', { messageId: 'm1', turn });
    await (await turnStarted(client, id, 1)).result();
    await client.close(id);
    await kit.client(taskQueue).client.workflow.getHandle(`conversation:${id}`).result();
    await expect(client.send(id, 'again', { messageId: 'm2', turn })).rejects.toMatchObject({
      code: 'conversation-closed',
      message: `conversation ${id} is closed: it takes no more messages`,
    });
  });
});

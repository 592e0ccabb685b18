import { temporal } from '@temporalio/proto';
import type { Worker } from '@temporalio/worker';
import {
  ConversationRefusedError,
  defineTool,
  type Message,
  type ModelRequest,
  scriptedModel,
} from 'durable-turns';
import { ConversationClient } from 'durable-turns/client';
import { z } from 'zod';
import { uniqueTurnId } from '../conformance/support';
import { TemporalKit } from './support/kit';
import { pollFor } from './support/poll';

const kit = new TemporalKit();
const taskQueue = kit.taskQueue('conversation');
let worker: Worker;
let running: Promise<void>;

/** Calls of `slow` wait until their gate opens (or the attempt is cancelled). */
const gates = new Map<string, () => void>();
const slow = defineTool({
  name: 'slow',
  description: 'Waits for its gate',
  input: z.object({ gate: z.string() }),
  execute: ({ gate }, { signal }) =>
    new Promise<string>((resolve, reject) => {
      gates.set(gate, () => resolve(`slow output of ${gate}`));
      signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true });
    }),
});

const lastUserText = (request: ModelRequest) =>
  [...request.messages].reverse().find((m) => m.role === 'user')?.content as string;

/** A user message `wait:G` calls `slow` with gate G; any other is answered at once. */
const model = scriptedModel([
  (request) => {
    const text = lastUserText(request);
    if (text.startsWith('wait:'))
      return { toolCalls: [{ id: `call-${text}`, name: 'slow', args: { gate: text.slice(5) } }] };
    // The answer (the model's last response) takes a while to finish streaming.
    if (text.startsWith('slowly:')) return { text: `answer to ${text}`, finishDelayMs: 1_000 };
    return { text: `answer to ${text}` };
  },
  (request) => ({ text: `done with ${lastUserText(request)}` }),
]);

beforeAll(async () => {
  await kit.open();
  worker = await kit.worker({ taskQueue, tools: [slow], model });
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
const turn = { model: 'scripted' };
const user = (content: string): Message => ({ role: 'user', content });

describe('a conversation on Temporal', () => {
  test('enqueue: each message is a turn of its own, in order; a later turn reads the earlier ones by reference; a retried send is one message; reject names the running turn', async () => {
    const client = conversations();
    const id = uniqueTurnId('conv');
    expect(await client.send(id, 'wait:a', { messageId: 'm1', turn })).toEqual({
      messageId: 'm1',
      status: 'started',
      turnId: `${id}#1`,
    });
    await pollFor('the first turn to run its slow call', async () => gates.get('a'));
    expect(await client.send(id, 'second', { messageId: 'm2', turn })).toEqual({
      messageId: 'm2',
      status: 'queued',
      ahead: 1,
    });
    // The same message id again (a retry): the same message, not a second turn.
    expect(await client.send(id, 'second', { messageId: 'm2', turn })).toMatchObject({ status: 'queued' });
    const busy = await client.send(id, 'third', { messageId: 'm3', policy: 'reject', turn }).catch((e) => e);
    expect(ConversationRefusedError.isInstance(busy)).toBe(true);
    expect(busy).toMatchObject({ code: 'conversation-busy' });
    expect(String(busy.message)).toContain(`running turn ${id}#1`);

    gates.get('a')?.();
    const second = await (await turnStarted(client, id, 2)).result();
    expect(second.text).toBe('answer to second');
    // Its request began with the whole first turn, then its own message.
    const request = model.requests.find((r) => r.turnId === `${id}#2`);
    expect(request?.messages).toEqual([
      user('wait:a'),
      expect.objectContaining({ role: 'assistant' }),
      expect.objectContaining({ role: 'tool' }),
      { role: 'assistant', content: [{ type: 'text', text: 'done with wait:a' }] },
      user('second'),
    ]);
    // By reference: the first turn's tool output is in its own history, not in the second's.
    expect(await historyHolds(`${id}#1`, 'slow output of a')).toBe(true);
    expect(await historyHolds(`${id}#2`, 'slow output of a')).toBe(false);

    const state = await client.state(id);
    expect(state).toMatchObject({ turnCount: 2, received: 3, queue: [], next: [] });
    expect(state.running).toBeUndefined();
    const transcript = await client.transcript(id);
    expect(transcript.filter((m) => m.role === 'user')).toEqual([user('wait:a'), user('second')]);
    expect(transcript.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'answer to second' }],
    });
  });

  test('interrupt: the running turn is cancelled with a true output for its call, and the message starts the next turn', async () => {
    const client = conversations();
    const id = uniqueTurnId('conv-interrupt');
    await client.send(id, 'wait:b', { messageId: 'm1', turn });
    await pollFor('the first turn to run its slow call', async () => gates.get('b'));
    expect(await client.send(id, 'stop that', { messageId: 'm2', policy: 'interrupt', turn })).toEqual({
      messageId: 'm2',
      status: 'queued',
      ahead: 1,
    });
    const first = await client.turn(id, 1).result();
    expect(first.status).toBe('cancelled');
    expect(first.outputs).toEqual([
      expect.objectContaining({ toolCallId: 'call-wait:b', status: 'interrupted' }),
    ]);
    const second = await (await turnStarted(client, id, 2)).result();
    expect(second.text).toBe('answer to stop that');
    const request = model.requests.find((r) => r.turnId === `${id}#2`);
    expect(request?.messages.at(-1)).toEqual(user('stop that'));
  });

  test('steer: the message joins the running turn at its next request; the running call goes on and its output stands', async () => {
    const client = conversations();
    const id = uniqueTurnId('conv-steer');
    await client.send(id, 'wait:d', { messageId: 'm1', turn });
    await pollFor('the first turn to run its slow call', async () => gates.get('d'));
    expect(await client.send(id, 'be brief', { messageId: 'm2', policy: 'steer', turn })).toEqual({
      messageId: 'm2',
      status: 'steered',
      turnId: `${id}#1`,
    });
    gates.get('d')?.();
    const first = await client.turn(id, 1).result();
    expect(first.outputs).toEqual([
      expect.objectContaining({ toolCallId: 'call-wait:d', status: 'ok', content: 'slow output of d' }),
    ]);
    expect(first.events.filter((e) => e.type === 'user.steered')).toEqual([
      { type: 'user.steered', messages: [{ messageId: 'm2', message: user('be brief') }] },
    ]);
    const next = model.requests.find((r) => r.turnId === `${id}#1` && r.responseIndex === 1);
    expect(next?.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(first.text).toBe('done with be brief');
    expect((await client.state(id)).turnCount).toBe(1);
  });

  test('a steer that comes while the last answer streams is not lost: it starts the next turn', async () => {
    const client = conversations();
    const id = uniqueTurnId('conv-late-steer');
    await client.send(id, 'slowly: hello', { messageId: 'm1', turn });
    const receipt = await client.send(id, 'one more thing', { messageId: 'm2', policy: 'steer', turn });
    // Steered into turn 1 while it streamed (and left by it), or after it ended: a turn of its own.
    expect([`${id}#1`, `${id}#2`]).toContain('turnId' in receipt ? receipt.turnId : '');
    const first = await client.turn(id, 1).result();
    expect(first.events.some((e) => e.type === 'user.steered')).toBe(false);
    const second = await (await turnStarted(client, id, 2)).result();
    expect(second.text).toBe('answer to one more thing');
    expect(await client.send(id, 'one more thing', { messageId: 'm2', policy: 'steer', turn })).toEqual({
      messageId: 'm2',
      status: 'started',
      turnId: `${id}#2`,
    });
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

  test('closed: what waits is dropped, the running turn ends as it would, and sends are refused with a clear error, before and after', async () => {
    const client = conversations();
    const id = uniqueTurnId('conv-close');
    const closed = `conversation ${id} is closed: it takes no more messages`;
    await client.send(id, 'wait:c', { messageId: 'm1', turn });
    await pollFor('the first turn to run its slow call', async () => gates.get('c'));
    await client.send(id, 'later', { messageId: 'm2', turn });
    expect(await client.close(id)).toEqual({ dropped: ['m2'] });
    // While its last turn runs, the conversation refuses a send itself ...
    await expect(client.send(id, 'again', { messageId: 'm3', turn })).rejects.toMatchObject({
      code: 'conversation-closed',
      message: closed,
    });
    gates.get('c')?.();
    expect((await client.turn(id, 1).result()).status).toBe('completed');
    await kit.client(taskQueue).client.workflow.getHandle(`conversation:${id}`).result();
    // ... and once it has ended, its id is not started again.
    await expect(client.send(id, 'again', { messageId: 'm4', turn })).rejects.toMatchObject({
      code: 'conversation-closed',
      message: closed,
    });
    expect(model.requests.some((r) => r.turnId === `${id}#2`)).toBe(false);
  });
});

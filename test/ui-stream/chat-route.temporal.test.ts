import { request as httpRequest } from 'node:http';
import type { Worker } from '@temporalio/worker';
import type { UIMessage } from 'ai';
import type { ChatConversations } from 'durable-turns';
import { chatConversations } from 'durable-turns/client';
import { type ChatRoute, chatRoute } from 'durable-turns/ui-stream';
import { chatTools } from '../../examples/chat/chat-agent';
import { startChatServer } from '../../examples/chat/chat-server';
import { signal } from '../support/signal';
import { TemporalKit } from '../temporal/support/kit';
import { leaveMidAnswer, outcome, shown, texts, tools } from './chat-answers';
import { heldChatModel } from './held-chat-model';
import { NodeChat } from './node-chat';
import { messageOfChunks, type SseEvent, sseEvents } from './sse-events';

const kit = new TemporalKit();
let worker: Worker;
let stopWorker: () => Promise<void>;
let server: { url: string; close(): Promise<void> };
let route: ChatRoute;
/** Opened by a test to let a response held at its third word go on ("hold" in the message). */
let release = signal();

beforeAll(async () => {
  await kit.open();
  const taskQueue = kit.taskQueue('chat-route');
  const model = heldChatModel({ wordDelayMs: 5, held: () => release.happened });
  worker = await kit.worker({ taskQueue, tools: chatTools, model });
  const running = worker.run();
  stopWorker = async () => {
    worker.shutdown();
    await running;
  };
  route = chatRoute({
    conversations: chatConversations(kit.client(taskQueue), { turn: { model: model.name } }),
  });
  server = await startChatServer({ route });
});

afterAll(async () => {
  await server?.close();
  await stopWorker?.();
  await kit.close();
});

let chats = 0;
const newChat = (messages?: UIMessage[], id = `chat-${process.pid}-${++chats}`) =>
  new NodeChat({ api: `${server.url}/api/chat`, id, ...(messages ? { messages } : {}) });
const messagesOf = async (chatId: string) =>
  (await (
    await fetch(`${server.url}/api/chat/${encodeURIComponent(chatId)}/messages`)
  ).json()) as UIMessage[];

describe('a useChat client (the AI SDK’s own chat and transport) over durable conversations', () => {
  test('a message starts a turn whose answer streams into one assistant message; the chat read back later is the same', async () => {
    const chat = newChat();
    await chat.sendMessage({ text: 'hello there' });
    await chat.until((c) => outcome(c.answer).length > 0);
    expect(chat.answer.id).toBe(`${chat.id}#1`);
    expect(texts(chat.answer)).toEqual([
      'You said: hello there. Say "deploy <service>" to see a call wait for your approval.',
    ]);
    expect(outcome(chat.answer)).toEqual(['completed']);
    await chat.sendMessage({ text: 'and again' });
    await chat.until((c) => c.answer.id === `${chat.id}#2` && outcome(c.answer).length > 0);
    // A second turn of the same conversation, then the chat as a reloaded page reads it.
    expect(shown(await messagesOf(chat.id))).toEqual(shown(chat.messages));
  });

  test('a call that needs approval ends the stream; the page’s answer continues the same message: the call runs, the model answers, nothing is repeated', async () => {
    const chat = newChat();
    await chat.sendMessage({ text: 'deploy api' });
    await chat.until((c) => tools(c.answer).some((t) => t.state === 'approval-requested'));
    const [call] = tools(chat.answer);
    if (call?.state !== 'approval-requested') throw new Error('no approval request');
    expect(call.input).toEqual({ service: 'api' });
    expect(outcome(chat.answer)).toEqual([]);

    await chat.addToolApprovalResponse({ id: call.approval.id, approved: true });
    await chat.until((c) => outcome(c.answer).length > 0);
    expect(chat.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(texts(chat.answer)).toEqual(['I will deploy api once you approve.', 'Done: api is live.']);
    expect(tools(chat.answer)).toEqual([
      expect.objectContaining({
        state: 'output-available',
        output: 'api is live',
        approval: expect.objectContaining({ approved: true }),
      }),
    ]);
    expect(outcome(chat.answer)).toEqual(['completed']);
    expect(shown(await messagesOf(chat.id))).toEqual(shown(chat.messages));
  });

  test('a rejected call is shown denied and never runs; the turn goes on to its end', async () => {
    const chat = newChat();
    await chat.sendMessage({ text: 'deploy billing' });
    await chat.until((c) => tools(c.answer).some((t) => t.state === 'approval-requested'));
    const [call] = tools(chat.answer);
    if (call?.state !== 'approval-requested') throw new Error('no approval request');
    await chat.addToolApprovalResponse({ id: call.approval.id, approved: false });
    await chat.until((c) => outcome(c.answer).length > 0);
    expect(tools(chat.answer)).toEqual([expect.objectContaining({ state: 'output-denied' })]);
    expect(chat.answer.parts.some((p) => p.type === 'data-attempt')).toBe(false);
    expect(outcome(chat.answer)).toEqual(['completed']);
  });

  test('a page that reloads mid-answer reads the chat so far and resumes the running turn: the answer is whole, nothing lost or repeated', async () => {
    release = signal();
    const first = newChat();
    await leaveMidAnswer(first);

    const reloaded = newChat(await messagesOf(first.id), first.id);
    expect(reloaded.messages.map((m) => m.role)).toEqual(['user']);
    const resumed = reloaded.resumeStream();
    release.fire();
    await resumed;
    await reloaded.until((c) => outcome(c.answer).length > 0);
    expect(texts(reloaded.answer)).toEqual([
      'You said: hold on, then answer. Say "deploy <service>" to see a call wait for your approval.',
    ]);
    expect(shown(await messagesOf(first.id))).toEqual(shown(reloaded.messages));
    // Nothing runs now: a resume finds no stream.
    expect((await fetch(`${server.url}/api/chat/${first.id}/stream`)).status).toBe(204);
  });
});

describe('a plain SSE client (as `EventSource`) that reconnects with `Last-Event-ID`', () => {
  const ask = (chatId: string, text: string) =>
    fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: chatId,
        messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text }] }],
        trigger: 'submit-message',
      }),
    });
  const resumeAfter = (chatId: string, lastEventId: string) =>
    fetch(`${server.url}/api/chat/${encodeURIComponent(chatId)}/stream`, {
      headers: { 'last-event-id': lastEventId },
    });
  const textOf = (events: SseEvent[]) =>
    events.flatMap(({ chunk }) => (chunk.type === 'text-delta' ? [chunk.delta] : [])).join('');

  test('gets exactly what follows its last event — the answer goes on mid-word, nothing lost or repeated — and 204 after the finish', async () => {
    release = signal();
    const chatId = `sse-${process.pid}-${++chats}`;
    // Dropped where the model holds its answer.
    const before = await sseEvents(await ask(chatId, 'hold on, then answer'), (events) =>
      textOf(events).includes('hold'),
    );
    const lastId = before.at(-1)?.id;
    if (!lastId) throw new Error('events come with ids');
    const resumed = resumeAfter(chatId, lastId);
    release.fire();
    const after = await sseEvents(await resumed);
    expect(after[0]?.chunk.type).not.toBe('start');
    // The text part it was reading goes on (the turn's live text begins with what it was shown).
    const partOf = (events: SseEvent[]) => events.find(({ chunk }) => chunk.type === 'text-delta')?.chunk;
    expect(partOf(after)).toEqual(expect.objectContaining({ id: (partOf(before) as { id: string }).id }));
    expect(after.some(({ chunk }) => chunk.type === 'data-retracted')).toBe(false);
    const message = await messageOfChunks([...before, ...after].map(({ chunk }) => chunk));
    expect(texts(message)).toEqual([
      'You said: hold on, then answer. Say "deploy <service>" to see a call wait for your approval.',
    ]);
    expect(textOf([...before, ...after])).toBe(texts(message)[0]);
    expect(outcome(message)).toEqual(['completed']);
    // The same from any point: reconnecting after an earlier event, the rest is the same message.
    const middle = Math.floor(before.length / 2);
    const again = await sseEvents(await resumeAfter(chatId, before[middle - 1]?.id ?? ''));
    expect(
      texts(await messageOfChunks([...before.slice(0, middle), ...again].map(({ chunk }) => chunk))),
    ).toEqual(texts(message));
    // After the finish there is nothing to send: an EventSource stops at a 204.
    expect((await resumeAfter(chatId, after.at(-1)?.id ?? '')).status).toBe(204);
  });

  test('an id this chat’s streams did not make is refused with a clear 400', async () => {
    const chatId = `sse-${process.pid}-${++chats}`;
    const events = await sseEvents(await ask(chatId, 'hello'));
    const id = events.at(-1)?.id ?? '';
    for (const wrong of ['garbage', id.replace(/^1\//, '2/'), id.replace(/^1\/1\.\d+/, '1/1.999999')]) {
      const refused = await resumeAfter(chatId, wrong);
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: string }).error).toMatch(/is not an event id of chat/);
    }
  });
});

describe('what the chat route refuses', () => {
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const message = (text: string) => ({ id: 'm1', role: 'user', parts: [{ type: 'text', text }] });

  test('without `authorize` it serves loopback only: a request sent to another host name is refused (a page of another site, DNS rebound)', async () => {
    // Node's fetch sets Host from the address: a request of its own names another.
    const { port } = new URL(server.url);
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest(
        { host: '127.0.0.1', port, path: '/api/chat', method: 'POST', headers: { host: 'evil.example' } },
        (response) => {
          let body = '';
          response.on('data', (chunk) => {
            body += chunk;
          });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        },
      );
      request.on('error', reject);
      request.end(JSON.stringify({ id: 'x', messages: [message('hi')], trigger: 'submit-message' }));
    });
    expect(status).toBe(403);
    expect(body).toMatch(/loopback only; give it `authorize`/);
  });

  test('with `authorize`, its answer decides, per chat', async () => {
    const guarded = chatRoute({
      conversations: stubConversations(),
      authorize: (request, { conversationId }) =>
        request.headers.get('authorization') === 'Bearer ok' && conversationId.startsWith('mine-'),
    });
    const ask = (id: string, authorization?: string) =>
      guarded.post(
        new Request('http://chat.example/api/chat', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
          body: JSON.stringify({ id, messages: [message('regenerate me')], trigger: 'regenerate-message' }),
        }),
      );
    expect((await ask('mine-1')).status).toBe(403);
    expect((await ask('theirs-1', 'Bearer ok')).status).toBe(403);
    // Allowed through, then refused for what it asks (regenerating is not supported).
    const allowed = await ask('mine-1', 'Bearer ok');
    expect(allowed.status).toBe(400);
    expect(((await allowed.json()) as { error: string }).error).toMatch(
      /regenerating a response is not supported/,
    );
  });

  test('bad bodies get a clear 400, a body over the limit 413, and a chat with nothing running a 204 on resume', async () => {
    expect((await post('{not json')).status).toBe(400);
    const malformed = await post({ id: 'x', messages: [] });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: string }).error).toMatch(/malformed chat request/);
    const files = await post({
      id: 'x',
      messages: [{ id: 'm', role: 'user', parts: [{ type: 'file', url: 'data:,' }] }],
      trigger: 'submit-message',
    });
    expect(((await files.json()) as { error: string }).error).toMatch(
      /parts must be text; this one has file/,
    );
    expect(
      (await post({ id: 'x', messages: [message('x'.repeat(5 * 1024 * 1024))], trigger: 'submit-message' }))
        .status,
    ).toBe(413);
    expect((await fetch(`${server.url}/api/chat/never-used/stream`)).status).toBe(204);
    expect((await fetch(`${server.url}/api/chat/never-used/elsewhere`)).status).toBe(404);
  });
});

/** Conversations that nobody reaches: for refusals decided before any is asked. */
function stubConversations(): ChatConversations {
  const never = () => Promise.reject(new Error('not reached'));
  return {
    send: never,
    runningTurn: never,
    turns: never,
    latestTurn: never,
    decide: never,
    journalEnd: never,
    watch: () => ({ [Symbol.asyncIterator]: () => ({ next: never }) }),
  };
}

import type { UIMessage } from 'ai';
import {
  ChatApprovals,
  InProcessConversations,
  InProcessExecutor,
  inProcessChatConversations,
} from 'durable-turns';
import { chatRoute } from 'durable-turns/ui-stream';
import { chatTools } from '../../examples/chat/chat-agent';
import { signal } from '../support/signal';
import { leaveMidAnswer, outcome, shown, texts, tools } from './chat-answers';
import { heldChatModel } from './held-chat-model';
import { NodeChat } from './node-chat';
import { messageOfChunks, type SseEvent, sseEvents } from './sse-events';

/** The chat route over the in-process executor's conversations, read by the AI SDK's own chat client. */
let release = signal();
const approvals = new ChatApprovals();
const executor = new InProcessExecutor({
  tools: chatTools,
  model: heldChatModel({ wordDelayMs: 2, held: () => release.happened }),
  approver: approvals.approver,
});
const conversations = new InProcessConversations({ executor });
const route = chatRoute({
  conversations: inProcessChatConversations({ conversations, executor, approvals }),
  authorize: () => true,
});
const fetchRoute: typeof fetch = async (input, init) => route.handle(new Request(input, init));
let chats = 0;
const newChat = (messages?: UIMessage[], id = `chat-${++chats}`) =>
  new NodeChat({
    api: 'http://app.example/api/chat',
    id,
    fetch: fetchRoute,
    ...(messages ? { messages } : {}),
  });
const messagesOf = async (chatId: string) =>
  (await (await fetchRoute(`http://app.example/api/chat/${chatId}/messages`)).json()) as UIMessage[];

test('in process too: an approval from the page continues the same message, and the chat read back is the same', async () => {
  const chat = newChat();
  await chat.sendMessage({ text: 'deploy api' });
  await chat.until((c) => tools(c.answer).some((t) => t.state === 'approval-requested'));
  const [call] = tools(chat.answer);
  if (call?.state !== 'approval-requested') throw new Error('no approval request');
  await chat.addToolApprovalResponse({ id: call.approval.id, approved: true });
  await chat.until((c) => outcome(c.answer).length > 0);
  expect(texts(chat.answer)).toEqual(['I will deploy api once you approve.', 'Done: api is live.']);
  expect(tools(chat.answer)).toEqual([
    expect.objectContaining({ state: 'output-available', output: 'api is live' }),
  ]);
  expect(outcome(chat.answer)).toEqual(['completed']);
  expect(shown(await messagesOf(chat.id))).toEqual(shown(chat.messages));
});

test('in process too: a page that reloads mid-answer resumes the running turn, the answer whole once', async () => {
  release = signal();
  const first = newChat();
  await leaveMidAnswer(first);
  const reloaded = newChat(await messagesOf(first.id), first.id);
  const resumed = reloaded.resumeStream();
  release.fire();
  await resumed;
  await reloaded.until((c) => outcome(c.answer).length > 0);
  expect(reloaded.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  expect(texts(reloaded.answer)).toEqual([
    'You said: hold on, then answer. Say "deploy <service>" to see a call wait for your approval.',
  ]);
});

test('in process too: a plain SSE client that reconnects with Last-Event-ID gets exactly what follows', async () => {
  release = signal();
  const chatId = `chat-sse-${++chats}`;
  const textOf = (events: SseEvent[]) =>
    events.flatMap(({ chunk }) => (chunk.type === 'text-delta' ? [chunk.delta] : [])).join('');
  const posted = await fetchRoute('http://app.example/api/chat', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      id: chatId,
      messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hold on, then answer' }] }],
      trigger: 'submit-message',
    }),
  });
  const before = await sseEvents(posted, (events) => textOf(events).includes('hold'));
  const resumed = fetchRoute(`http://app.example/api/chat/${chatId}/stream`, {
    headers: { 'last-event-id': before.at(-1)?.id ?? '' },
  });
  release.fire();
  const after = await sseEvents(await resumed);
  const message = await messageOfChunks([...before, ...after].map(({ chunk }) => chunk));
  expect(texts(message)).toEqual([
    'You said: hold on, then answer. Say "deploy <service>" to see a call wait for your approval.',
  ]);
  expect(textOf([...before, ...after])).toBe(texts(message)[0]);
});

describe('what the chat route refuses, before anything is asked of a conversation', () => {
  /** Loopback-only (no `authorize`), as a request from this machine to 127.0.0.1 looks to it. */
  const local = chatRoute({
    conversations: inProcessChatConversations({ conversations, executor, approvals }),
  });
  const post = (
    headers: Record<string, string>,
    body: unknown = { id: 'x', messages: [], trigger: 'submit-message' },
  ) =>
    local.handle(
      new Request('http://127.0.0.1:3000/api/chat', {
        method: 'POST',
        headers: { host: '127.0.0.1:3000', ...headers },
        body: JSON.stringify(body),
      }),
      { remoteAddress: '127.0.0.1' },
    );
  const errorOf = async (response: Response) => ((await response.json()) as { error: string }).error;

  test('a page of another site: its browser says so (Sec-Fetch-Site), or its Origin is not the address asked', async () => {
    const json = { 'content-type': 'application/json' };
    const crossSite = await post({ ...json, 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    expect(await errorOf(crossSite)).toMatch(/another site/);
    const otherOrigin = await post({ ...json, origin: 'https://evil.example' });
    expect(otherOrigin.status).toBe(403);
    expect(await errorOf(otherOrigin)).toMatch(/another origin/);
    // The page's own origin passes those checks (and fails on the empty message list instead).
    expect((await post({ ...json, origin: 'http://127.0.0.1:3000' })).status).toBe(400);
  });

  test('a body that is not declared JSON (what a form or a no-cors fetch sends) gets 415', async () => {
    const response = await post({ 'content-type': 'text/plain' });
    expect(response.status).toBe(415);
  });

  test('a request a local proxy forwarded is not loopback', async () => {
    const response = await post({ 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.9' });
    expect(response.status).toBe(403);
  });

  test('an approval answer names its message: one that is not a turn of this chat gets 409', async () => {
    const response = await route.post(
      new Request('http://app.example/api/chat', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          id: 'chat-decides-elsewhere',
          trigger: 'submit-message',
          messages: [
            {
              id: 'other-chat#1',
              role: 'assistant',
              parts: [
                {
                  type: 'dynamic-tool',
                  toolName: 'deploy',
                  toolCallId: 'c1',
                  state: 'approval-responded',
                  input: {},
                  approval: { id: 'c1', approved: true },
                },
              ],
            },
          ],
        }),
      }),
    );
    expect(response.status).toBe(409);
    expect(await errorOf(response)).toMatch(/not a turn of chat/);
  });

  test('a chat id in the path that is not valid gets 400', async () => {
    const get = (path: string) =>
      local.handle(
        new Request(`http://127.0.0.1:3000/api/chat/${path}/stream`, { headers: { host: '127.0.0.1:3000' } }),
        {
          remoteAddress: '127.0.0.1',
        },
      );
    const malformed = await get('%E0%A4%A');
    expect(malformed.status).toBe(400);
    expect(await errorOf(malformed)).toMatch(/percent-encoding/);
    expect((await get('x'.repeat(300))).status).toBe(400);
    expect((await get('never-used')).status).toBe(204);
  });
});

import {
  InProcessConversations,
  InProcessExecutor,
  type ModelRequest,
  scriptedModel,
  type TurnResult,
} from 'durable-turns';
import { conversationSessionKey } from '../core';
import { everythingOverStdio } from '../test/support/mcp-servers';
import type { McpServerConfig } from './mcp-server-config';
import type { McpToolbox } from './mcp-toolbox';
import { mcpTools } from './mcp-tools';

const notice =
  "MCP server everything: this conversation's session with the server is new (the one earlier calls used is gone); state those calls left on the server may be lost.";
/** The toggle's output in a new session, after the notice. */
const renewedStart = new RegExp(`^${literal(notice)}\nStarted `);

/** A user message `toggle` calls the toggle (state per session), `weather` a tool with structured content. */
const model = scriptedModel([
  (request: ModelRequest) => {
    const last = request.messages.at(-1);
    return last?.role === 'user' && last.content === 'weather'
      ? {
          toolCalls: [{ id: 'w', name: 'everything_get-structured-content', args: { location: 'Chicago' } }],
        }
      : { toolCalls: [{ id: 't', name: 'everything_toggle-subscriber-updates', args: {} }] };
  },
  { text: 'done' },
]);

let mcp: McpToolbox;
let conversations: InProcessConversations;
let executor: InProcessExecutor;
async function open(options: Partial<McpServerConfig> = {}): Promise<void> {
  mcp = await mcpTools({
    servers: [
      everythingOverStdio({
        trusted: true,
        session: 'conversation',
        only: ['toggle-subscriber-updates', 'get-structured-content'],
        ...options,
      }),
    ],
  });
  executor = new InProcessExecutor({ tools: [], mcp, model, blobStore: false, tracing: false });
  conversations = new InProcessConversations({ executor });
}
afterEach(() => mcp.close());

let sent = 0;
/** A message's turn, once the conversation has heard of its end; its one call's output. */
async function say(conversationId: string, text: string) {
  const { turnCount } = await conversations.state(conversationId);
  sent += 1;
  await conversations.send(conversationId, text, { messageId: `m${sent}` });
  const result: TurnResult = await conversations.turnResult(conversationId, turnCount + 1);
  await conversations.idle(conversationId);
  return result.outputs[0];
}
const keyOf = async (conversationId: string) =>
  conversationSessionKey(await conversations.state(conversationId));

test("a call whose conversation's session was closed runs in a new one, and its output begins by saying so; the next one does not", async () => {
  await open();
  await say('c1', 'toggle');

  await mcp.closeSessions(await keyOf('c1'));

  const renewed = await say('c1', 'toggle');
  expect(renewed).toMatchObject({ status: 'ok' });
  expect(String(renewed?.content)).toMatch(renewedStart);
  expect(await say('c1', 'toggle')).toMatchObject({ content: expect.stringMatching(/^Stopped /) });
});

test('a session idle for sessionIdleMs closes: the next call is told its session is new', async () => {
  await open({ sessionIdleMs: 200 });
  await say('c2', 'toggle');

  await new Promise((resolve) => setTimeout(resolve, 700));

  expect(String((await say('c2', 'toggle'))?.content)).toMatch(renewedStart);
});

test('the notice stays in a result with structured content: as its first text block, beside the value', async () => {
  await open();
  await say('c3', 'weather');
  await mcp.closeSessions(await keyOf('c3'));

  expect(await say('c3', 'weather')).toMatchObject({
    status: 'ok',
    content: {
      content: [{ type: 'text', text: notice }],
      structuredContent: { temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 },
    },
  });
});

test('closing an in-process conversation closes its sessions: a later turn with its key is in a new one', async () => {
  await open();
  await say('c4', 'toggle');
  const key = await keyOf('c4');

  await conversations.close('c4');

  // A standalone turn given the closed conversation's key, to look at what is left of its session.
  const probe = await executor.runTurn({ turnId: 'probe', input: 'toggle', session: { key } });
  expect(String(probe.outputs[0]?.content)).toMatch(renewedStart);
});

/** `text` as a regular expression that matches it, and only it. */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

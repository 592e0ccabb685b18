import path from 'node:path';
import { Client } from '@temporalio/client';
import type { TurnResult } from 'durable-turns';
import { ConversationClient } from 'durable-turns/client';
import { type McpToolbox, mcpTools } from 'durable-turns/mcp';
import { uniqueTurnId } from '../conformance/support';
import { everythingOverStdio } from '../support/mcp-servers';
import { toggleModel, toggleServer } from '../support/session-toggle';
import { testTemporal } from '../support/temporal-env';
import { TemporalKit } from './support/kit';
import { pollFor } from './support/poll';
import { killGroup, WorkerProcesses } from './support/worker-process';

const kit = new TemporalKit();
const processes = new WorkerProcesses();
let mcp: McpToolbox | undefined;
beforeAll(() => kit.open());
afterAll(async () => {
  processes.killAll();
  await mcp?.close();
  await kit.close();
});

const newSession = /^MCP server everything: this conversation's session with the server is new/;

test("a conversation's calls to a session-keeping server go to the worker that holds its session; when that worker dies, another opens a new one and the model is told", async () => {
  const taskQueue = kit.taskQueue('mcp-session-pin');
  const { address, namespace } = testTemporal();
  // Worker A, a process of its own: killed later as a crash would.
  const a = await processes.start({
    script: path.join(__dirname, 'support/session-worker.ts'),
    args: [address, namespace, taskQueue],
    label: 'session worker A',
  });
  const conversations = new ConversationClient(kit.client(taskQueue));
  const history = new Client({ connection: kit.connection, namespace: kit.namespace }).workflow;
  const conversationId = uniqueTurnId('pinned-session');
  let turns = 0;
  /** A turn of the conversation: the call's output, and the task queue its last attempt was sent to. */
  const say = async (text: string) => {
    turns += 1;
    const n = turns;
    await conversations.send(conversationId, text, {
      messageId: `m${n}`,
      turn: { model: toggleModel.name, timing: { heartbeatTimeoutMs: 2_000, sessionWorkerWaitMs: 3_000 } },
    });
    const turn = conversations.turn(conversationId, n);
    const result: TurnResult = await turn.result();
    await pollFor(`conversation ${conversationId} to hear of turn ${n}'s end`, async () =>
      (await conversations.state(conversationId)).running ? undefined : true,
    );
    const { events } = await history.getHandle(turn.turnId).fetchHistory();
    const queues = (events ?? []).flatMap((event) => {
      const scheduled = event.activityTaskScheduledEventAttributes;
      return scheduled?.activityType?.name === 'runTool' ? [scheduled.taskQueue?.name ?? ''] : [];
    });
    const [output] = result.outputs;
    return { status: output?.status, content: String(output?.content), attempts: output?.attempts, queues };
  };
  const sessionQueue = new RegExp(`^${taskQueue}\\.sessions\\.`);

  // Only A runs: the first call opens the conversation's session there.
  const first = await say('toggle');
  expect(first).toMatchObject({ status: 'ok', content: expect.stringMatching(/^Started /) });
  // B, in this process, polls the turn's queue too now.
  mcp = await mcpTools({ servers: [everythingOverStdio(toggleServer)] });
  const b = await kit.worker({ taskQueue, tools: [], model: toggleModel, mcp });
  const running = b.run();
  try {
    // The call is sent to A's own queue, to its session.
    const second = await say('toggle again');
    expect(second.queues).toEqual([expect.stringMatching(sessionQueue)]);
    expect(second).toMatchObject({ status: 'ok', content: expect.stringMatching(/^Stopped /) });

    // A dies: the next call waits 3 s for it, then B runs it in a session of its own, and says so.
    killGroup(a);
    const third = await say('and again');
    expect(third.queues).toEqual([second.queues[0], taskQueue]);
    expect(third).toMatchObject({ status: 'ok', attempts: 1 });
    expect(third.content).toMatch(newSession);
    expect(third.content).toMatch(/Started /);

    // From then on its calls go to B's own queue, to that session.
    const fourth = await say('once more');
    expect(fourth.queues).toEqual([expect.stringMatching(sessionQueue)]);
    expect(fourth.queues[0]).not.toBe(second.queues[0]);
    expect(fourth).toMatchObject({ status: 'ok', content: expect.stringMatching(/^Stopped /) });

    // Closing the conversation closes its session on B (its server process exits), not left idle.
    const held = () => (mcp?.openSessions().everything ?? []).filter((key) => key.startsWith(conversationId));
    expect(held()).toHaveLength(1);
    await conversations.close(conversationId);
    await pollFor('the closed conversation’s session on B to close', async () =>
      held().length === 0 ? true : undefined,
    );
  } finally {
    // (Closed already when the test got that far.)
    await conversations.close(conversationId).catch(() => undefined);
    b.shutdown();
    await running;
  }
});

/**
 * Records real turn histories for the replay fixtures: `npx tsx test/replay/capture-histories.ts`.
 *
 * Turns last days, so a workflow change must still replay what running turns recorded. This runs
 * one turn per scenario on a throwaway dev server with the workflow code of the commit it is run
 * at, and writes each run's history to `test/replay/histories/<scenario>[.runN].json`;
 * `committed-histories.test.ts` replays every file there against today's code. Run it again only
 * to add scenarios: files of older releases are kept, never overwritten.
 */

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, promises as fs, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { NativeConnection } from '@temporalio/worker';
import { scriptedModel, type ToolLister, type TurnModel } from 'durable-turns';
import { ConversationClient, TurnClient, turnSearchAttributeList } from 'durable-turns/client';
import { ensureTemporal } from 'durable-turns/devserver';
import { mcpTools } from 'durable-turns/mcp';
import { createTurnWorker, type ModelRateLimit } from 'durable-turns/worker';
import { conversationWorkflowId, conversationWorkflowIdPrefix } from '../../contract/conversation-workflow';
import { everythingOverStdio } from '../support/mcp-servers';
import { crashScript } from '../temporal/support/crash-script';
import { collect, pollFor } from '../temporal/support/poll';
import { replayTools } from './replay-tools';

const _sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const outDir = path.join(__dirname, 'histories');
const root = path.join(__dirname, '../..');
const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root }).toString().trim();

const tools = replayTools;

interface Env {
  native: NativeConnection;
  connection: Connection;
  address: string;
  namespace: string;
}

/** A scenario runs one turn (`turnId`), or returns the workflow ids it ran (a conversation and its turns). */
// biome-ignore lint/suspicious/noConfusingVoidType: a scenario of one turn returns nothing
type Scenario = (args: { env: Env; taskQueue: string; turnId: string }) => Promise<void | string[]>;

async function withWorker(
  env: Env,
  taskQueue: string,
  model: TurnModel,
  body: () => Promise<void>,
  modelRateLimits?: Record<string, ModelRateLimit>,
  mcp?: ToolLister,
) {
  const worker = await createTurnWorker({
    connection: env.native,
    namespace: env.namespace,
    taskQueue,
    tools,
    models: [model],
    ...(modelRateLimits ? { modelRateLimits } : {}),
    ...(mcp ? { mcp } : {}),
  });
  await worker.runUntil(body);
}

const client = (env: Env, taskQueue: string) =>
  new TurnClient({ connection: env.connection, namespace: env.namespace, taskQueue });

const scenarios: Record<string, Scenario> = {
  /** A wave of two reads, a write (barrier), a retried call and an approval; calls handed over mid-stream. */
  'wave-barrier-retry-approval': async ({ env, taskQueue, turnId }) => {
    const model = scriptedModel([
      {
        text: 'working',
        toolCalls: [
          { id: 'a', name: 'read_file', args: { path: 'a' } },
          { id: 'b', name: 'read_file', args: { path: 'b' } },
          { id: 'c', name: 'write_file', args: { path: 'c' } },
          { id: 'd', name: 'flaky', args: {} },
          { id: 'e', name: 'deploy', args: { target: 'prod' } },
        ],
        finishDelayMs: 300,
      },
      { text: 'done' },
    ]);
    await withWorker(env, taskQueue, model, async () => {
      const turn = await client(env, taskQueue).start({ turnId, input: 'go', model: 'scripted' });
      await pollFor('the deploy to wait for approval', async () =>
        (await turn.state()).phase === 'awaiting-approval' ? true : undefined,
      );
      await turn.approve('e', 'looks fine');
      expect((await turn.result()).status, 'completed');
    });
  },
  /**
   * Decisions of every kind and grants, with a structured answer: an edited approval that remembers
   * (a grant with a pattern), a call the grant lets run, a grant given and revoked by update, an
   * answer in a tool's place, and a final answer asked again once before it matches.
   */
  'decisions-grants-output': async ({ env, taskQueue, turnId }) => {
    const deploy = (id: string, target: string) => ({ id, name: 'deploy', args: { target } });
    const model = scriptedModel([
      { toolCalls: [deploy('e1', 'staging')] },
      { toolCalls: [deploy('e2', 'canary-2')] },
      { toolCalls: [deploy('e3', 'prod')] },
      { text: 'all done' },
      { text: '{"done":true}' },
    ]);
    const waiting = (turn: Awaited<ReturnType<TurnClient['start']>>, id: string) =>
      pollFor(`${id} to wait for approval`, async () =>
        (await turn.state()).calls.some((c) => c.toolCallId === id && c.approval) ? true : undefined,
      );
    await withWorker(env, taskQueue, model, async () => {
      const turns = new TurnClient({
        connection: env.connection,
        namespace: env.namespace,
        taskQueue,
        approver: { by: 'alice', via: 'cli' },
      });
      const turn = await turns.start({
        turnId,
        input: 'go',
        model: 'scripted',
        output: { schema: { type: 'object', properties: { done: { type: 'boolean' } }, required: ['done'] } },
      });
      await waiting(turn, 'e1');
      await turn.grant({ grantId: 'reads', toolName: 'read_file' });
      await turn.revoke('reads');
      await turn.decide({
        toolCallId: 'e1',
        decision: 'approve',
        input: { target: 'canary-1' },
        remember: { match: [{ path: 'target', pattern: '^canary-' }] },
      });
      await waiting(turn, 'e3');
      await turn.respond('e3', 'deployed by hand');
      expect((await turn.result()).status, 'completed');
    });
  },
  /** An MCP server's tools: the turn pins its list (a pinToolset Update), and carries it across continue-as-new. */
  'mcp-pinned-toolset': async ({ env, taskQueue, turnId }) => {
    const mcp = await mcpTools({
      servers: [everythingOverStdio({ trusted: true, only: ['echo', 'get-sum'] })],
    });
    const model = scriptedModel([
      { toolCalls: [{ id: 'e', name: 'everything_echo', args: { message: 'hi' } }] },
      { toolCalls: [{ id: 's', name: 'everything_get-sum', args: { a: 1, b: 2 } }] },
      { text: 'done' },
    ]);
    try {
      await withWorker(
        env,
        taskQueue,
        model,
        async () => {
          const turn = await client(env, taskQueue).start({
            turnId,
            input: 'go',
            model: 'scripted',
            continueAsNewAfterEvents: 12,
          });
          expect((await turn.result()).status, 'completed');
        },
        undefined,
        mcp,
      );
    } finally {
      await mcp.close();
    }
  },
  /** A rate-limited model: its first request is sent on to the model's queue, the next go there. */
  'rate-limited-model': async ({ env, taskQueue, turnId }) => {
    const model = scriptedModel([
      { toolCalls: [{ id: 'r', name: 'read_file', args: { path: 'r', ms: 10 } }] },
      { text: 'done' },
    ]);
    await withWorker(
      env,
      taskQueue,
      model,
      async () => {
        const turn = await client(env, taskQueue).start({ turnId, input: 'go', model: 'scripted' });
        expect((await turn.result()).status, 'completed');
      },
      { scripted: { requestsPerSecond: 50 } },
    );
  },
  /** A model request that fails twice (retryable) before it answers. */
  'model-retry': async ({ env, taskQueue, turnId }) => {
    const model = scriptedModel([
      { failFirst: 2, toolCalls: [{ id: 'r', name: 'read_file', args: { path: 'r', ms: 10 } }] },
      { text: 'done' },
    ]);
    await withWorker(env, taskQueue, model, async () => {
      const turn = await client(env, taskQueue).start({ turnId, input: 'go', model: 'scripted' });
      expect((await turn.result()).status, 'completed');
    });
  },
  /** Cancelled while one call of the wave is done and the other still runs. */
  'cancel-mid-wave': async ({ env, taskQueue, turnId }) => {
    const model = scriptedModel([
      {
        toolCalls: [
          { id: 'quick', name: 'read_file', args: { path: 'q', ms: 10 } },
          { id: 'slow', name: 'read_file', args: { path: 's', ms: 20_000 } },
        ],
      },
      { text: 'never' },
    ]);
    await withWorker(env, taskQueue, model, async () => {
      const turn = await client(env, taskQueue).start({
        turnId,
        input: 'go',
        model: 'scripted',
        timing: { heartbeatTimeoutMs: 2_000 },
      });
      await pollFor('the quick read done and the slow one running', async () => {
        const calls = (await turn.state()).calls;
        const quick = calls.find((c) => c.toolCallId === 'quick');
        const slow = calls.find((c) => c.toolCallId === 'slow');
        return quick?.status === 'ok' && slow?.phase === 'running' ? true : undefined;
      });
      await turn.cancel();
      expect((await turn.result()).status, 'cancelled');
    });
  },
  /** An approval that nobody gives: it expires on a durable timer; then a budget stop. */
  'approval-expired-budget': async ({ env, taskQueue, turnId }) => {
    const model = scriptedModel([
      { toolCalls: [{ id: 'e', name: 'deploy', args: { target: 'prod' } }] },
      {
        toolCalls: [
          { id: 'x', name: 'read_file', args: { path: 'x', ms: 10 } },
          { id: 'y', name: 'read_file', args: { path: 'y', ms: 10 } },
        ],
      },
      { text: 'never' },
    ]);
    await withWorker(env, taskQueue, model, async () => {
      const turn = await client(env, taskQueue).start({
        turnId,
        input: 'go',
        model: 'scripted',
        approvals: { timeoutMs: 500 },
        budget: { maxToolCalls: 1 },
      });
      expect((await turn.result()).status, 'budget_exhausted');
    });
  },
  /**
   * A background build beside two quick lookups; the model is done first, the turn waits for the
   * build, its output is delivered and the model answers it.
   */
  'background-and-quick': async ({ env, taskQueue, turnId }) => {
    const model = scriptedModel([
      {
        toolCalls: [
          { id: 'b', name: 'build', args: { target: 'app', ms: 500 } },
          { id: 'k1', name: 'lookup', args: { key: 'one' } },
          { id: 'k2', name: 'lookup', args: { key: 'two' } },
        ],
      },
      { text: 'waiting for the build' },
      { text: 'built' },
    ]);
    await withWorker(env, taskQueue, model, async () => {
      const turn = await client(env, taskQueue).start({ turnId, input: 'go', model: 'scripted' });
      const result = await turn.result();
      expect(result.status, 'completed');
      expect(
        result.events.some((e) => e.type === 'background.delivered'),
        true,
      );
    });
  },
  /**
   * Quick lookups that run one after another, in chains (several attempts in one local activity),
   * with an ordinary call between them that fails first and is retried: it ends the first chain.
   */
  'quick-chain': async ({ env, taskQueue, turnId }) => {
    const model = scriptedModel([
      {
        toolCalls: [
          ...['one', 'two', 'three'].map((key, i) => ({
            id: `q${i}`,
            name: 'lookup_in_order',
            args: { key },
          })),
          { id: 'f', name: 'flaky', args: {} },
          { id: 'q3', name: 'lookup_in_order', args: { key: 'four' } },
          { id: 'q4', name: 'lookup_in_order', args: { key: 'five' } },
        ],
      },
      { text: 'looked up' },
    ]);
    await withWorker(env, taskQueue, model, async () => {
      const turn = await client(env, taskQueue).start({ turnId, input: 'go', model: 'scripted' });
      const result = await turn.result();
      expect(result.status, 'completed');
    });
  },
  /** Eight responses of three reads with continue-as-new every ~40 events: one file per run. */
  'continue-as-new': async ({ env, taskQueue, turnId }) => {
    const steps = 8;
    const model = scriptedModel([
      ...Array.from({ length: steps }, (_, r) => ({
        toolCalls: [0, 1, 2].map((i) => ({
          id: `r${r}c${i}`,
          name: 'read_file',
          args: { path: `f${r}-${i}`, ms: 10 },
        })),
      })),
      { text: 'done' },
    ]);
    await withWorker(env, taskQueue, model, async () => {
      const turn = await client(env, taskQueue).start({
        turnId,
        input: 'go',
        model: 'scripted',
        continueAsNewAfterEvents: 40,
      });
      expect((await turn.result()).status, 'completed');
    });
  },
  /**
   * A conversation: a turn with a slow call, a steer into it and a message queued behind it, the
   * conversation continuing as new between turns, then closed. Its workflow and its turns are kept.
   */
  conversation: async ({ env, taskQueue, turnId: id }) => {
    const model = scriptedModel([
      (request) => {
        const last = request.messages.at(-1);
        return last?.role === 'user' && last.content === 'read slowly'
          ? { toolCalls: [{ id: 's', name: 'read_file', args: { path: 's', ms: 1_500 } }] }
          : { text: `answer ${request.turnId}` };
      },
      { text: 'read it' },
    ]);
    await withWorker(env, taskQueue, model, async () => {
      const conversations = new ConversationClient(client(env, taskQueue));
      const options = { turn: { model: 'scripted' }, continueAsNewAfterEvents: 20 };
      await conversations.send(id, 'read slowly', { messageId: 'm1', ...options });
      await pollFor(
        'the slow read to run',
        async () =>
          (await conversations.turn(id, 1).state()).calls.some((c) => c.phase === 'running') || undefined,
      );
      expect(
        (await conversations.send(id, 'be brief', { messageId: 'm2', policy: 'steer', ...options })).status,
        'steered',
      );
      await conversations.send(id, 'and then?', { messageId: 'm3', ...options });
      await conversations.turn(id, 1).result();
      const idle = () =>
        pollFor('the conversation to be idle', async () => {
          const state = await conversations.state(id);
          return state.running || state.queue.length > 0 || state.next.length > 0 ? undefined : true;
        });
      await idle();
      await conversations.send(id, 'one more', { messageId: 'm4', ...options });
      await idle();
      await conversations.close(id);
    });
    return [conversationWorkflowId(id), `${id}#1`, `${id}#3`];
  },
  /** The worker process is killed while a retry-safe and a non-retry-safe call run; another finishes the turn. */
  'worker-lost': async ({ env, taskQueue, turnId }) => {
    const ledger = path.join(mkdtempSync(path.join(os.tmpdir(), 'capture-ledger-')), 'ledger');
    const first = await startWorkerProcess(env, taskQueue, ledger);
    const turns = new TurnClient({
      connection: env.connection,
      namespace: env.namespace,
      taskQueue,
    });
    const turn = await turns.start({
      turnId,
      input: 'go',
      model: crashScript().name,
      timing: { heartbeatTimeoutMs: 2_000 },
    });
    await pollFor('both slow calls running', async () => {
      const calls = (await turn.state()).calls;
      return calls.filter((c) => c.toolCallId.startsWith('slow') && c.phase === 'running').length === 2
        ? true
        : undefined;
    });
    killGroup(first);
    const second = await startWorkerProcess(env, taskQueue, ledger);
    try {
      expect((await turn.result()).status, 'completed');
    } finally {
      killGroup(second);
    }
  },
};

function expect(actual: unknown, expected: unknown): void {
  if (actual !== expected) throw new Error(`expected ${String(expected)}, got ${String(actual)}`);
}

function killGroup(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function startWorkerProcess(env: Env, taskQueue: string, ledger: string): Promise<ChildProcess> {
  const child = spawn(
    'npx',
    [
      'tsx',
      path.join(__dirname, '../temporal/support/crash-worker.ts'),
      env.address,
      env.namespace,
      taskQueue,
      ledger,
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (d) => {
      if (String(d).includes('WORKER READY')) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`worker process exited (${code}) before it was ready`)));
  });
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  await fs.mkdir(outDir, { recursive: true });
  const stateDir = mkdtempSync(path.join(os.tmpdir(), 'capture-histories-'));
  const { TEMPORAL_ADDRESS: _ignored, ...processEnv } = process.env;
  const temporal = await ensureTemporal({
    searchAttributes: turnSearchAttributeList,
    env: processEnv,
    stateDir,
    headless: true,
    stopTimeoutMs: 0,
    log: (line) => console.error(`temporal: ${line}`),
  });
  const env: Env = {
    native: await NativeConnection.connect({ address: temporal.address }),
    connection: await Connection.connect({ address: temporal.address }),
    address: temporal.address,
    namespace: temporal.namespace,
  };
  try {
    for (const [name, scenario] of Object.entries(scenarios)) {
      if (only.length > 0 && !only.includes(name)) continue;
      const turnId = `replay-${name}`;
      const taskQueue = `capture-${name}`;
      console.error(`capturing ${name} …`);
      const ran = (await scenario({ env, taskQueue, turnId })) ?? [turnId];
      for (const workflowId of ran) {
        // More than one workflow: each file is named for its workflow too (`conversation.turn-3.…`).
        const which = ran.length > 1 ? `.${workflowLabel(workflowId)}` : '';
        const runs = await collect(listRuns(env, workflowId));
        runs.sort((a, b) => a.startTime.getTime() - b.startTime.getTime());
        for (const [index, run] of runs.entries()) {
          const history = await client(env, taskQueue)
            .client.workflow.getHandle(workflowId, run.runId)
            .fetchHistory();
          const file = path.join(
            outDir,
            `${name}${which}${runs.length > 1 ? `.run${index + 1}` : ''}.${commit}.json`,
          );
          if (existsSync(file)) continue;
          await fs.writeFile(
            file,
            `${JSON.stringify(historyFixture({ scenario: name, turnId: workflowId, history }), null, 2)}\n`,
          );
          console.error(`  wrote ${path.relative(root, file)} (${history.events?.length ?? 0} events)`);
        }
      }
    }
  } finally {
    await env.connection.close();
    await env.native.close();
    await temporal.stop();
    await fs.rm(stateDir, { recursive: true, force: true });
  }
}

/**
 * The history as protobuf bytes (base64), which every SDK version decodes the same way; the SDK's
 * own JSON form needs matching protobufjs copies, which installs do not guarantee. The event
 * types are listed beside it so a reader can see what a fixture holds.
 */
function historyFixture({
  scenario,
  turnId,
  history,
}: {
  scenario: string;
  turnId: string;
  history: temporal.api.history.v1.IHistory;
}) {
  const types = (history.events ?? []).map((e) =>
    String(temporal.api.enums.v1.EventType[e.eventType ?? 0]).replace(/^EVENT_TYPE_/, ''),
  );
  return {
    scenario,
    workflowId: turnId,
    commit,
    eventTypes: types,
    historyBase64: Buffer.from(temporal.api.history.v1.History.encode(history).finish()).toString('base64'),
  };
}

/** `conversation` for a conversation's workflow, `turn-N` for its turn N. */
function workflowLabel(workflowId: string): string {
  if (workflowId.startsWith(conversationWorkflowIdPrefix)) return 'conversation';
  return `turn-${workflowId.split('#').at(-1) ?? workflowId}`;
}

function listRuns(env: Env, turnId: string) {
  return client(env, 'list').client.workflow.list({ query: `WorkflowId = '${turnId}'` });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

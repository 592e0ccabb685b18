import { Client } from '@temporalio/client';
import { scriptedModel, type ToolLister } from 'durable-turns';
import { type McpToolbox, mcpTools } from 'durable-turns/mcp';
import { listedToolset } from '../../core';
import { uniqueTurnId } from '../conformance/support';
import { everythingOverStdio } from '../support/mcp-servers';
import { TemporalKit } from './support/kit';
import { pollFor } from './support/poll';

const kit = new TemporalKit();
let mcp: McpToolbox | undefined;
beforeAll(() => kit.open());
afterAll(async () => {
  await mcp?.close();
  await kit.close();
});

/** The real server's list with `hidden` left out: a worker whose servers list less. */
function listing(toolbox: McpToolbox, hidden: readonly string[]): ToolLister {
  return {
    listed: toolbox.listed,
    list: async () => {
      const now = await toolbox.list();
      return listedToolset(
        now.servers.map((server) => ({
          ...server,
          tools: server.tools.filter((tool) => !hidden.includes(tool.name)),
        })),
      );
    },
    toolsOf: (toolset) => toolbox.toolsOf(toolset),
  };
}

test("a worker that takes over a turn offers what its servers list now and is answered with the turn's pinned list, which it uses", async () => {
  mcp = await mcpTools({
    servers: [
      everythingOverStdio({
        only: ['echo', 'get-sum'],
        // echo waits for approval, so the turn waits with no task running while workers change.
        defaults: { requiresApproval: false },
        tools: { echo: { requiresApproval: true } },
      }),
    ],
  });
  const model = scriptedModel(
    [
      { toolCalls: [{ id: 'echo', name: 'everything_echo', args: { message: 'hi' } }] },
      { toolCalls: [{ id: 'sum', name: 'everything_get-sum', args: { a: 1, b: 2 } }] },
      { text: 'done' },
    ],
    'mcp-pin',
  );
  const taskQueue = kit.taskQueue('mcp-pin');
  const client = kit.client(taskQueue);
  const turnId = uniqueTurnId('mcp-pin');

  // Worker A's server lists no get-sum: the turn begins there and pins that.
  const first = await kit.worker({ taskQueue, tools: [], model, mcp: listing(mcp, ['get-sum']) });
  const turn = await first.runUntil(async () => {
    // Short runs: the pinned list must cross continue-as-new too.
    const started = await client.start({
      turnId,
      input: 'echo, then add',
      model: model.name,
      continueAsNewAfterEvents: 8,
    });
    await pollFor('the echo call to wait for approval', async () =>
      (await started.state()).phase === 'awaiting-approval' ? true : undefined,
    );
    return started;
  });

  // Worker B's server lists get-sum; it runs the rest of the turn.
  const second = await kit.worker({ taskQueue, tools: [], model, mcp });
  const result = await second.runUntil(async () => {
    await turn.approve('echo');
    return turn.result();
  });

  expect(result.outputs.map((output) => [output.toolCallId, output.status, output.errorType])).toEqual([
    ['echo', 'ok', undefined],
    ['sum', 'error', 'unknown-tool'],
  ]);
  // One offer per worker, each in the history of the run it came to (a replay pins the same list),
  // and the turn continued as new after A's offer: B was answered with the list carried over.
  const workflows = new Client({ connection: kit.connection, namespace: kit.namespace }).workflow;
  const offersPerRun: number[] = [];
  let runId: string | undefined =
    (await workflows.getHandle(turnId).describe()).raw.workflowExecutionInfo?.firstRunId ?? undefined;
  while (runId) {
    const events = (await workflows.getHandle(turnId, runId).fetchHistory()).events ?? [];
    offersPerRun.push(
      events.filter(
        (event) =>
          event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'pinToolset',
      ).length,
    );
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  expect(offersPerRun[0]).toBe(1);
  expect(offersPerRun.reduce((sum, count) => sum + count, 0)).toBe(2);
  expect(offersPerRun.length).toBeGreaterThan(1);
});

import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import { agentTool, defineTool, type ModelRequest, scriptedModel, type TurnModel } from 'durable-turns';
import { TurnClient } from 'durable-turns/client';
import { parseApprovalKeys } from 'durable-turns/codec';
import { createTurnWorker } from 'durable-turns/worker';
import { z } from 'zod';
import { waitingForApprovalKey } from '../../contract/search-attributes';
import { uniqueTurnId } from '../conformance/support';
import { TemporalKit } from './support/kit';
import { messageChain, pollFor } from './support/poll';

/**
 * What a parent does with its sub-agents' reports, which anyone who reaches the frontend can forge:
 * a decision sent to the parent goes only down the sub-agents its own calls run, and only for the
 * call it showed; a call id the parent also uses is still decided where it waits; and the parent's
 * waiting attribute falls once the call that ran the sub-agent has ended.
 */
const kit = new TemporalKit();
const keys = parseApprovalKeys(`approvers:${randomBytes(32).toString('base64')}`);
const deployed: string[] = [];
const deploy = defineTool({
  name: 'deploy',
  description: 'Deploys (a person must approve it)',
  input: z.object({ target: z.string() }),
  requiresApproval: true,
  execute: ({ target }, { turnId }) => {
    deployed.push(`${turnId}: ${target}`);
    return `deployed ${target}`;
  },
});
/** Holds the parent's second request of the `stale` case until the test has looked. */
let releaseParent = () => {};
const parentHeld = new Promise<void>((resolve) => {
  releaseParent = resolve;
});
const isSub = (r: ModelRequest) => r.turnId.includes('/agent/');
const scripted = scriptedModel(
  [
    (r) => {
      // The sub-agent's deploy has the id of its parent's call in the `collide` case.
      if (isSub(r)) return { toolCalls: [{ id: 'c1', name: 'deploy', args: { target: 'prod' } }] };
      const agent = r.turnId.includes('stale') ? 'researcher_brief' : 'researcher';
      return { toolCalls: [{ id: 'c1', name: agent, args: { task: 'go' } }] };
    },
    (r) => ({ text: isSub(r) ? 'shipped' : 'done' }),
  ],
  'scripted-reports',
);
const model: TurnModel = {
  name: scripted.name,
  async *stream(request) {
    if (request.turnId.includes('stale') && !isSub(request) && request.responseIndex === 1) await parentHeld;
    yield* scripted.stream(request);
  },
};
const researcher = agentTool({ name: 'researcher', description: 'Digs', model: model.name });
// Its call ends (timed out) while its sub-agent still waits for a person.
const brief = agentTool({
  name: 'researcher_brief',
  description: 'Digs briefly',
  model: model.name,
  timeoutMs: 1_500,
});

let taskQueue: string;
let running: Promise<void>;
let stopWorker = () => {};
beforeAll(async () => {
  await kit.open();
  taskQueue = kit.taskQueue('sub-agent-reports');
  const worker = await createTurnWorker({
    connection: kit.native,
    namespace: kit.namespace,
    taskQueue,
    tools: [deploy, researcher, brief],
    models: [model],
    approvalKeys: keys,
    fleetHealth: false,
  });
  running = worker.run();
  stopWorker = () => worker.shutdown();
}, 60_000);
afterAll(async () => {
  releaseParent();
  stopWorker();
  await running;
  await kit.close();
});

const turns = () =>
  new TurnClient({ connection: kit.connection, namespace: kit.namespace, taskQueue, approvalKeys: keys });
/** Anyone who reaches the frontend: a client with no keys. */
const anyone = () => new Client({ connection: kit.connection, namespace: kit.namespace });
const waitingListed = (turn: ReturnType<ReturnType<typeof turns>['attach']>) =>
  pollFor('the parent to list its sub-agent’s waiting call', async () => {
    const listed = (await turn.state()).subAgentApprovals;
    return listed?.length ? listed : undefined;
  });

test('a forged report is dropped unless it names the sub-agent of the call, and a decision on what it shows is refused: nothing runs; the real call is still decided through the parent', async () => {
  const parent = await turns().start({
    turnId: uniqueTurnId('reports-forged'),
    input: 'go',
    model: model.name,
    approvals: { signed: true },
  });
  const child = `${parent.turnId}/agent/c1`;
  await waitingListed(parent);
  const forge = (turnId: string, toolName: string) =>
    anyone()
      .workflow.getHandle(parent.turnId)
      .signal('subAgentApprovals', {
        toolCallId: 'c1',
        turnId,
        at: Number.MAX_SAFE_INTEGER,
        approvals: [{ turnId, toolCallId: 'c1', toolName, input: { q: 'weather' }, reason: 'harmless' }],
      });
  // Naming a turn the call does not run: dropped, the parent still shows the real call. (An update
  // the turn refuses is answered after the signal before it was handled.)
  await forge(`${parent.turnId}-victim`, 'lookup');
  await parent.revoke('no-such-grant').catch(() => {});
  expect((await parent.state()).subAgentApprovals).toEqual([
    expect.objectContaining({ turnId: child, toolCallId: 'c1', toolName: 'deploy', agentCallId: 'c1' }),
  ]);
  // Naming the sub-agent, with a harmless-looking tool in place of its deploy: shown, but a decision
  // on it is refused where the call waits.
  await forge(child, 'lookup');
  const shown = await pollFor('the forged report to show', async () => {
    const listed = (await parent.state()).subAgentApprovals;
    return listed?.[0]?.toolName === 'lookup' ? listed : undefined;
  });
  expect(shown).toEqual([expect.objectContaining({ turnId: child, toolCallId: 'c1', agentCallId: 'c1' })]);
  const refused = await parent.approve('c1').then(
    (where) => `decided on ${where}`,
    (error) => messageChain(error),
  );
  expect(refused).toContain(
    `call c1 waiting in turn ${child} is deploy {"target":"prod"}, not what its parent showed (lookup {"q":"weather"}): nothing was decided`,
  );
  expect(deployed).toEqual([]);
  // The operator decides the real call on its own turn (signed for it): it runs.
  await turns().attach(child).approve('c1');
  expect((await parent.result()).outputs).toEqual([
    expect.objectContaining({ toolCallId: 'c1', content: 'shipped' }),
  ]);
  expect(deployed).toEqual([`${child}: prod`]);
}, 60_000);

test('a sub-agent’s call with the id of the parent’s own call is decided on the parent, in the sub-agent', async () => {
  const parent = await turns().start({
    turnId: uniqueTurnId('reports-collide'),
    input: 'go',
    model: model.name,
  });
  await waitingListed(parent);
  expect(await parent.approve('c1')).toBe(`${parent.turnId}/agent/c1`);
  expect((await parent.result()).status).toBe('completed');
}, 60_000);

test('the parent’s waiting attribute falls when the call that ran a waiting sub-agent times out, and the timeout cancels the sub-agent', async () => {
  const parent = await turns().start({
    turnId: uniqueTurnId('reports-stale'),
    input: 'go',
    model: model.name,
  });
  const waiting = async () =>
    (await anyone().workflow.getHandle(parent.turnId).describe()).typedSearchAttributes.get(
      waitingForApprovalKey,
    );
  await waitingListed(parent);
  expect(await waiting()).toBe(true);
  // The agent call times out; the parent asks its model again (held there): nothing waits for it now.
  await pollFor('the agent call to end', async () =>
    (await parent.state()).calls.find((c) => c.toolCallId === 'c1')?.status ? true : undefined,
  );
  expect((await parent.state()).subAgentApprovals).toBeUndefined();
  await pollFor('the waiting attribute to fall', async () =>
    (await waiting()) === false ? true : undefined,
  );
  releaseParent();
  await parent.result();
  // The call's timeout cancelled its sub-agent too (as in process): its waiting call got a true output.
  const sub = await turns().attach(`${parent.turnId}/agent/c1`).result();
  expect(sub.status).toBe('cancelled');
  expect(sub.outputs).toEqual([expect.objectContaining({ toolCallId: 'c1', status: 'interrupted' })]);
}, 60_000);

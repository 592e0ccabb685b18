import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { defineTool, scriptedModel } from 'durable-turns';
import { TurnClient, type TurnHandle } from 'durable-turns/client';
import { type ApprovalKeys, parseApprovalKeys, signApproval } from 'durable-turns/codec';
import { createTurnWorker, turnWorkflowSinks } from 'durable-turns/worker';
import { z } from 'zod';
import { approveUpdate, grantUpdate } from '../../contract/turn-workflow';
import { uniqueTurnId } from '../conformance/support';
import { suiteWorkflowBundle } from '../support/suite-workflow-bundle';
import { TemporalKit } from './support/kit';
import { collect, messageChain, pollFor } from './support/poll';

/**
 * Anyone who reaches the Temporal frontend can send a turn's `approve` update, naming any approver.
 * A turn started with `approvals: { signed: true }` takes only decisions signed with a key its
 * workers hold; the keys stay in the processes, never in history.
 */
const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

const secret = randomBytes(32).toString('base64');
const keys = parseApprovalKeys(`approvers:${secret}`);
const wrongKeys = parseApprovalKeys(`approvers:${randomBytes(32).toString('base64')}`);

const deployed: string[] = [];
const deploy = defineTool({
  name: 'deploy',
  description: 'Deploys (a person must approve it)',
  input: z.object({ target: z.string() }),
  requiresApproval: true,
  execute: ({ target }, ctx) => {
    deployed.push(ctx.toolCallId);
    return `deployed ${target}`;
  },
});

function worker(taskQueue: string, approvalKeys: ApprovalKeys | false) {
  return createTurnWorker({
    connection: kit.native,
    namespace: kit.namespace,
    taskQueue,
    tools: [deploy],
    models: [
      scriptedModel([
        { toolCalls: [{ id: 'd1', name: 'deploy', args: { target: 'prod' } }] },
        { text: 'done' },
      ]),
    ],
    approvalKeys,
    fleetHealth: false,
  });
}

const client = (taskQueue: string, approvalKeys: ApprovalKeys | false) =>
  new TurnClient({ connection: kit.connection, namespace: kit.namespace, taskQueue, approvalKeys });

async function startWaiting(turns: TurnClient, label: string): Promise<TurnHandle> {
  const turn = await turns.start({
    turnId: uniqueTurnId(label),
    input: 'deploy to prod',
    model: 'scripted',
    approvals: { signed: true },
  });
  await pollFor('the deploy to wait for approval', async () =>
    (await turn.state()).phase === 'awaiting-approval' ? true : undefined,
  );
  return turn;
}

/** Why the turn refused an update (Temporal wraps the turn's words in its own). */
async function refusal(sent: Promise<unknown>): Promise<string> {
  const error = await sent.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (error === undefined) throw new Error('the turn took it');
  return messageChain(error);
}

test('a signed turn refuses forged decisions — unsigned (before history), signed with another key, or altered after signing — and the call waits; one signed with its key runs it, and the journal says by whom; no key is in history, which replays without keys', async () => {
  const taskQueue = kit.taskQueue('signed-approvals');
  const w = await worker(taskQueue, keys);
  await w.runUntil(async () => {
    const turn = await startWaiting(client(taskQueue, keys), 'signed');
    const { turnId } = turn;
    // A forger reaches the frontend with a plain Temporal client, as tctl or a script would.
    const forged = new Client({ connection: kit.connection, namespace: kit.namespace }).workflow.getHandle(
      turnId,
    );

    expect(
      await refusal(
        forged.executeUpdate(approveUpdate, {
          args: [{ toolCallId: 'd1', decision: 'approve', by: 'forger-unsigned' }],
        }),
      ),
    ).toMatch(/refused: this turn takes only signed decisions.*this approval is not signed/);
    expect(
      await refusal(
        forged.executeUpdate(grantUpdate, {
          args: [{ grantId: 'g', toolName: 'deploy', by: 'forger-unsigned' }],
        }),
      ),
    ).toMatch(/this grant is not signed/);
    expect(
      await refusal(client(taskQueue, wrongKeys).attach(turnId).approve('d1', { by: 'forger-wrong-key' })),
    ).toMatch(/refused: this turn takes only signed decisions.*its signature does not match it/);
    // A signature captured from a real decision (history shows it) does not carry another approver.
    const { kind: _kind, ...captured } = signApproval({
      turnId,
      event: { kind: 'approval', toolCallId: 'd1', decision: 'approve', by: 'bob', via: 'api' },
      keys,
    });
    expect(
      await refusal(forged.executeUpdate(approveUpdate, { args: [{ ...captured, by: 'forger-altered' }] })),
    ).toMatch(/its signature does not match it/);

    expect((await turn.state()).phase).toBe('awaiting-approval');
    expect(deployed).toEqual([]);

    await turn.approve('d1', { by: 'alice' });
    const result = await turn.result();
    expect(result.status).toBe('completed');
    expect(deployed).toEqual(['d1']);
    const journal = (await collect(turn.watch({ live: false }))).map((item) => item.entry);
    expect(journal.filter((entry) => entry.type === 'tool.approval_decided')).toEqual([
      expect.objectContaining({ toolCallId: 'd1', approved: true, by: 'alice', via: 'api' }),
    ]);

    const history = await forged.fetchHistory();
    const bytes = Buffer.from(temporal.api.history.v1.History.encode(history).finish());
    expect(bytes.includes(secret)).toBe(false);
    expect(bytes.includes(keys.active.key)).toBe(false);
    // Refused in the validator, the unsigned ones never entered history; the others did, refused by the worker.
    expect(bytes.includes('forger-unsigned')).toBe(false);
    expect(bytes.includes('forger-wrong-key')).toBe(true);
    expect(bytes.includes('forger-altered')).toBe(true);
    // Replay reads each verdict from its marker: no keys, and long past the signatures' freshness.
    await Worker.runReplayHistory(
      { workflowBundle: await suiteWorkflowBundle(), sinks: turnWorkflowSinks() },
      history,
      turnId,
    );
  });
});

test('a worker without approval keys refuses a signed decision, saying why, and the turn waits on', async () => {
  const taskQueue = kit.taskQueue('signed-keyless');
  const w = await worker(taskQueue, false);
  await w.runUntil(async () => {
    const turn = await startWaiting(client(taskQueue, keys), 'keyless');
    expect(await refusal(turn.approve('d1', { by: 'alice' }))).toMatch(
      /refused: this turn takes only signed decisions.*this worker holds no approval keys.*DURABLE_TURNS_APPROVAL_KEYS/,
    );
    expect((await turn.state()).phase).toBe('awaiting-approval');
    await turn.cancel();
    expect((await turn.result()).status).toBe('cancelled');
  });
});

import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import { scriptedModel, ToolHealthRegistry } from 'durable-turns';
import { FleetHealthClient, TurnClient } from 'durable-turns/client';
import { dataConverterOption, parseEncryptionKeys } from 'durable-turns/codec';
import { createTurnWorker } from 'durable-turns/worker';
import { lastWorkflowTaskFailure } from '../../client/last-workflow-task-failure';
import { fleetHealthWorkflowId } from '../../contract/fleet-health';
import { FleetHealthReporter } from '../../worker/fleet-health-reporter';
import { uniqueTurnId } from '../conformance/support';
import { echoTool } from '../support/echo-tool';
import { TemporalKit } from './support/kit';
import { pollFor } from './support/poll';

/**
 * A dev server run once with DURABLE_TURNS_ENCRYPTION_KEYS, then without, on the same state: the
 * fleet health workflow of the first run holds payloads encrypted with a key the new workers do
 * not hold. They must say so by the key's id, and fleet health (soft state) must come back.
 */
const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

const keys = parseEncryptionKeys(`k7:${randomBytes(32).toString('base64')}`);

/** A report from a worker that ran with keys and is gone, as the first run left it. */
async function reportWithKeys(taskQueue: string): Promise<void> {
  const reporter = new FleetHealthReporter({
    client: new Client({
      connection: kit.connection,
      namespace: kit.namespace,
      ...dataConverterOption(keys),
    }),
    taskQueue,
    identity: 'gone-with-keys',
    health: new ToolHealthRegistry({ now: Date.now }),
    options: { intervalMs: 60_000 },
    log: () => {},
  });
  reporter.start();
  await reporter.stop({ leave: false });
  await reporter.idle();
}

const keylessWorker = (
  taskQueue: string,
  options: { fleetHealth: false | { intervalMs: number }; log?: string[] },
) =>
  createTurnWorker({
    connection: kit.native,
    namespace: kit.namespace,
    taskQueue,
    tools: [echoTool],
    models: [scriptedModel([{ text: 'unused' }])],
    encryption: false,
    fleetHealth: options.fleetHealth,
    log: (line) => options.log?.push(line),
    worker: { identity: 'keyless' },
  });

test('a worker without keys names the key it lacks; health says why it cannot read; a reporting worker starts fleet health afresh', async () => {
  const taskQueue = kit.taskQueue('fleet-unreadable');
  const workflowId = fleetHealthWorkflowId({ taskQueue });
  await reportWithKeys(taskQueue);
  const client = new Client({ connection: kit.connection, namespace: kit.namespace });
  const { runId: firstRunId } = await client.workflow.getHandle(workflowId).describe();
  const health = new FleetHealthClient({ client });

  // A worker that does not report: its workflow task fails, naming the key, and nothing restarts.
  const silent = await keylessWorker(taskQueue, { fleetHealth: false });
  await silent.runUntil(async () => {
    const failure = await pollFor('the fleet workflow task to fail', () =>
      lastWorkflowTaskFailure({ client, workflowId }),
    );
    expect(failure).toContain('key k7');
    expect(failure).toContain('this process holds no encryption keys');
    await expect(health.fleetHealth({ taskQueue, timeoutMs: 1_000 })).rejects.toThrow(
      /fail workflow .*'s task: a payload is encrypted with key k7, and this process holds no encryption keys/,
    );
  });

  // A worker that reports: it terminates the run it cannot read, saying why, and starts a new one.
  const log: string[] = [];
  const reporting = await keylessWorker(taskQueue, { fleetHealth: { intervalMs: 200 }, log });
  const view = await reporting.runUntil(() =>
    pollFor('the fleet view with the keyless worker', async () => {
      const read = await health.fleetHealth({ taskQueue, timeoutMs: 2_000 });
      return read.workers.some((w) => w.identity === 'keyless') ? read : undefined;
    }),
  );
  expect(view.workers.map((w) => w.identity)).toEqual(['keyless']);
  expect(log.filter((line) => /terminating it/.test(line))).toEqual([
    expect.stringContaining(
      `${workflowId} holds a payload encrypted with key k7 that this worker cannot open`,
    ),
  ]);
  const first = await pollFor('the first run terminated', async () => {
    const { history } = await client.workflowService.getWorkflowExecutionHistoryReverse({
      namespace: kit.namespace,
      execution: { workflowId, runId: firstRunId },
      maximumPageSize: 1,
    });
    return history?.events?.[0]?.workflowExecutionTerminatedEventAttributes ?? undefined;
  });
  expect(first.reason).toMatch(
    /worker keyless cannot read this fleet health run .*key k7.*; fleet health is soft state/,
  );
});

test("a turn whose workers lack its key: reading its state names the key, not only the query's deadline", async () => {
  const taskQueue = kit.taskQueue('turn-unreadable');
  const client = new TurnClient({
    connection: kit.connection,
    namespace: kit.namespace,
    taskQueue,
    encryption: keys,
  });
  const turn = await client.start({ turnId: uniqueTurnId('unreadable'), input: 'go', model: 'scripted' });
  const worker = await keylessWorker(taskQueue, { fleetHealth: false });
  await worker.runUntil(async () => {
    await pollFor('the turn workflow task to fail', () =>
      lastWorkflowTaskFailure({ client: client.client, workflowId: turn.turnId }),
    );
    await expect(kit.connection.withDeadline(Date.now() + 1_500, () => turn.state())).rejects.toThrow(
      `turn ${turn.turnId}'s workers cannot run its workflow task: a payload is encrypted with key k7, and this process holds no encryption keys`,
    );
  });
  await turn.cancel().catch(() => {});
});

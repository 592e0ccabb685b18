import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { transcriptProblems } from 'durable-turns';
import type { TurnClient } from 'durable-turns/client';
import { uniqueTurnId } from '../conformance/support';
import { testTemporal } from '../support/temporal-env';
import { TemporalKit } from './support/kit';
import { collect, pollFor } from './support/poll';
import { killGroup, WorkerProcesses } from './support/worker-process';

const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

const processes = new WorkerProcesses();
const dirs: string[] = [];
afterEach(() => {
  processes.killAll();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function startWorkerProcess(taskQueue: string, ledger: string, label: string) {
  const { address, namespace } = testTemporal();
  return processes.start({
    script: path.join(__dirname, 'support/sub-agent-crash-worker.ts'),
    args: [address, namespace, taskQueue, ledger],
    label,
  });
}

/** Each call's runs by the ledger: how many, and under which idempotency keys. */
function ledgerRuns(ledger: string): Map<string, string[]> {
  const runs = new Map<string, string[]>();
  for (const line of readFileSync(ledger, { encoding: 'utf8', flag: 'a+' }).split('\n').filter(Boolean)) {
    const [key, id] = line.split(' ') as [string, string];
    runs.set(id, [...(runs.get(id) ?? []), key]);
  }
  return runs;
}

/** A finished turn's attempts, call by call, from its journal: `started 1`, `lost 1 (rerun)`, `finished 1 ok`. */
async function attemptsOf(client: TurnClient, turnId: string): Promise<Record<string, string[]>> {
  const attempts: Record<string, string[]> = {};
  const note = (toolCallId: string, what: string) => {
    attempts[toolCallId] = [...(attempts[toolCallId] ?? []), what];
  };
  for await (const { entry } of client.watch(turnId, { live: false })) {
    if (entry.type === 'tool.attempt_started') note(entry.toolCallId, `started ${entry.attempt}`);
    if (entry.type === 'tool.attempt_lost')
      note(entry.toolCallId, `lost ${entry.attempt}${entry.rerun ? ' (rerun)' : ''}`);
    if (entry.type === 'tool.attempt_finished')
      note(entry.toolCallId, `finished ${entry.attempt} ${entry.result.status}`);
  }
  return attempts;
}

test("a sub-agent's worker SIGKILLed while its tools run: the parent's call attaches to the same sub-agent turn, whose calls get true outputs, and its answer is the call's output", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'crash-sub-agent-'));
  dirs.push(dir);
  const ledger = path.join(dir, 'ledger.txt');
  const taskQueue = kit.taskQueue('crash-sub-agent');
  const first = await startWorkerProcess(taskQueue, ledger, 'the first worker');
  const turnId = uniqueTurnId('crash-sub-agent');
  const child = `${turnId}/agent/r1`;
  const client = kit.client(taskQueue);
  // The parent's attempts are found lost after 2 s; the sub-agent's after its own default (10 s).
  const turn = await client.start({
    turnId,
    input: 'dig',
    model: 'crash-sub-agent',
    timing: { heartbeatTimeoutMs: 2_000 },
  });
  // The parent's call and the sub-agent's two calls all run on the one worker: kill it.
  await pollFor(
    "both of the sub-agent's calls to begin",
    async () => {
      const runs = ledgerRuns(ledger);
      return runs.has('sub_safe') && runs.has('sub_unsafe') ? true : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 50 },
  );
  killGroup(first);
  await startWorkerProcess(taskQueue, ledger, 'the second worker');
  const result = await turn.result();
  const sub = await client.attach(child).result();

  // The parent: its call's attempt was lost with its worker and run again (a lost attempt is run
  // again under its own number), and its output is the sub-agent's answer.
  expect(result).toMatchObject({ status: 'completed', text: 'recovered' });
  expect(result.outputs).toEqual([
    expect.objectContaining({ toolCallId: 'r1', status: 'ok', content: 'dug it up', attempts: 1 }),
  ]);
  expect(transcriptProblems(result.transcript)).toEqual([]);
  expect(await attemptsOf(client, turnId)).toEqual({
    r1: ['started 1', 'lost 1 (rerun)', 'started 1', 'finished 1 ok'],
  });

  // The sub-agent: the retry-safe call ran again with the same key, the other is outcome unknown.
  expect(sub).toMatchObject({ status: 'completed', text: 'dug it up' });
  const byId = new Map(sub.outputs.map((o) => [o.toolCallId, o]));
  expect(byId.get('sub_safe')).toMatchObject({ status: 'ok', content: 'sub_safe done' });
  expect(byId.get('sub_unsafe')).toMatchObject({ status: 'interrupted', errorType: 'outcome-unknown' });
  expect(String(byId.get('sub_unsafe')?.content)).toMatch(
    /outcome unknown after its host was lost; not retried because the tool is not retry-safe/,
  );
  expect(sub.outputs).toHaveLength(2);
  expect(transcriptProblems(sub.transcript)).toEqual([]);
  expect(await attemptsOf(client, child)).toEqual({
    sub_safe: ['started 1', 'lost 1 (rerun)', 'started 1', 'finished 1 ok'],
    sub_unsafe: ['started 1', 'lost 1'],
  });
  const runs = ledgerRuns(ledger);
  expect(runs.get('sub_safe')).toHaveLength(2);
  expect(new Set(runs.get('sub_safe')).size).toBe(1);
  expect(runs.get('sub_unsafe')).toHaveLength(1);

  // Exactly one sub-agent turn ran: one start, each response asked once, one workflow execution.
  expect(sub.events.filter((e) => e.type === 'turn.started')).toHaveLength(1);
  expect(sub.events.flatMap((e) => (e.type === 'model.requested' ? [e.responseIndex] : []))).toEqual([0, 1]);
  const workflows = new Client({ connection: kit.connection, namespace: kit.namespace }).workflow;
  const executions = await pollFor('the sub-agent turn to be listed closed', async () => {
    const listed = await collect(workflows.list({ query: `WorkflowId = "${child}"` }));
    return listed.some((w) => w.status.name === 'COMPLETED') ? listed : undefined;
  });
  expect(executions.map((w) => w.status.name)).toEqual(['COMPLETED']);
});

import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { transcriptProblems } from 'durable-turns';
import { ConversationClient } from '../../client/conversation-client';
import { sleep, uniqueTurnId } from '../conformance/support';
import { spawnSourceChild } from '../support/source-child';
import { testTemporal } from '../support/temporal-env';
import { TemporalKit } from './support/kit';
import { pollFor } from './support/poll';

const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) killGroup(child);
});

/** Kill the whole group (the worker and anything it started), as a machine crash would. */
function killGroup(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function startWorkerProcess(taskQueue: string, ledger: string): Promise<ChildProcess> {
  const { address, namespace } = testTemporal();
  const child = spawnSourceChild(
    path.join(__dirname, 'support/crash-worker.ts'),
    [address, namespace, taskQueue, ledger],
    {
      cwd: path.join(__dirname, '../..'),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr += String(d);
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (d) => {
      if (String(d).includes('WORKER READY')) resolve(child);
    });
    child.on('exit', (code) =>
      reject(new Error(`worker process exited (${code}) before it was ready: ${stderr}`)),
    );
  });
}

function ledgerCounts(ledger: string): Map<string, { count: number; keys: Set<string> }> {
  const counts = new Map<string, { count: number; keys: Set<string> }>();
  if (!existsSync(ledger)) return counts;
  for (const line of readFileSync(ledger, 'utf8').split('\n').filter(Boolean)) {
    const [key, id] = line.split(' ') as [string, string];
    const entry = counts.get(id) ?? { count: 0, keys: new Set() };
    entry.count += 1;
    entry.keys.add(key);
    counts.set(id, entry);
  }
  return counts;
}

/**
 * Starts a turn of `model` on a worker process, SIGKILLs it once every call in `calls` has begun
 * its side effect (by the ledger), starts another worker, and waits for the turn's result.
 */
async function killedWhileRunning({
  label,
  model,
  calls,
  settleMs = 0,
}: {
  label: string;
  model: string;
  calls: string[];
  settleMs?: number;
}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), `${label}-`));
  const ledger = path.join(dir, 'ledger.txt');
  const taskQueue = kit.taskQueue(label);
  const first = await startWorkerProcess(taskQueue, ledger);
  const turnId = uniqueTurnId(label);
  const turn = await kit
    .client(taskQueue)
    .start({ turnId, input: 'go', model, timing: { heartbeatTimeoutMs: 2_000 } });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const counts = ledgerCounts(ledger);
    if (calls.every((id) => counts.has(id))) break;
    await sleep(50);
  }
  await sleep(settleMs);
  killGroup(first);
  await startWorkerProcess(taskQueue, ledger);
  return { turnId, ledger, result: await turn.result() };
}

describe('crash recovery', () => {
  test('a worker process killed mid-wave: another finishes the turn; completed calls are not re-run, retry-safe ones re-run with the same key, the others get interrupted', async () => {
    const { turnId, ledger, result } = await killedWhileRunning({
      label: 'crash',
      model: 'crash-script',
      calls: ['slow_safe', 'slow_unsafe', 'fast1', 'fast2'],
      // Let the fast calls' completions reach the server.
      settleMs: 300,
    });

    expect(result.status).toBe('completed');
    expect(result.text).toBe('recovered');
    const counts = ledgerCounts(ledger);
    expect(counts.get('fast1')?.count).toBe(1);
    expect(counts.get('fast2')?.count).toBe(1);
    expect(counts.get('slow_safe')?.count).toBe(2);
    expect([...(counts.get('slow_safe')?.keys ?? [])]).toEqual([`${turnId}/slow_safe`]);
    expect(counts.get('slow_unsafe')?.count).toBe(1);
    const byId = new Map(result.outputs.map((o) => [o.toolCallId, o]));
    expect(byId.get('slow_safe')).toMatchObject({ status: 'ok' });
    expect(byId.get('slow_unsafe')).toMatchObject({ status: 'interrupted', errorType: 'outcome-unknown' });
    expect(String(byId.get('slow_unsafe')?.content)).toMatch(
      /outcome unknown after its host was lost; not retried because the tool is not retry-safe/,
    );
    expect(transcriptProblems(result.transcript)).toEqual([]);
  });

  test('a worker process killed while background calls run: the retry-safe one reruns with the same key, the other is delivered as outcome unknown', async () => {
    const { turnId, ledger, result } = await killedWhileRunning({
      label: 'crash-bg',
      model: 'crash-background',
      calls: ['bg_safe', 'bg_unsafe'],
    });

    expect(result.status).toBe('completed');
    expect(result.text).toBe('recovered');
    const counts = ledgerCounts(ledger);
    expect(counts.get('bg_safe')?.count).toBe(2);
    expect([...(counts.get('bg_safe')?.keys ?? [])]).toEqual([`${turnId}/bg_safe`]);
    expect(counts.get('bg_unsafe')?.count).toBe(1);
    const byId = new Map(result.outputs.map((o) => [o.toolCallId, o]));
    expect(byId.get('bg_safe')).toMatchObject({ status: 'ok', content: 'bg_safe done' });
    expect(byId.get('bg_unsafe')).toMatchObject({ status: 'interrupted', errorType: 'outcome-unknown' });
    const delivered = result.events.flatMap((e) =>
      e.type === 'background.delivered' ? e.deliveries.map((d) => d.toolCallId) : [],
    );
    expect(delivered.sort()).toEqual(['bg_safe', 'bg_unsafe']);
    expect(transcriptProblems(result.transcript)).toEqual([]);
  });

  test('a worker process killed while a quick call runs: another worker runs it again, with the same key (a local activity leaves no record before it runs)', async () => {
    const { turnId, ledger, result } = await killedWhileRunning({
      label: 'crash-quick',
      model: 'crash-quick',
      calls: ['quick_safe'],
    });
    expect(result.status).toBe('completed');
    expect(result.text).toBe('recovered');
    const runs = ledgerCounts(ledger).get('quick_safe');
    expect(runs?.count).toBe(2);
    expect([...(runs?.keys ?? [])]).toEqual([`${turnId}/quick_safe`]);
    expect(result.outputs).toMatchObject([{ toolCallId: 'quick_safe', status: 'ok', attempts: 1 }]);
  });

  test("a conversation's worker killed mid-turn: messages sent again across the crash are the same messages; the turn finishes on another worker and the queued message runs once", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'crash-conversation-'));
    const ledger = path.join(dir, 'ledger.txt');
    const taskQueue = kit.taskQueue('crash-conversation');
    const first = await startWorkerProcess(taskQueue, ledger);
    const conversations = new ConversationClient(kit.client(taskQueue));
    const id = uniqueTurnId('crash-conversation');
    const options = {
      turn: { model: 'crash-conversation', timing: { heartbeatTimeoutMs: 2_000 } },
    };
    expect(await conversations.send(id, 'go slow', { messageId: 'm1', ...options })).toEqual({
      messageId: 'm1',
      status: 'started',
      turnId: `${id}#1`,
    });
    expect(await conversations.send(id, 'then this', { messageId: 'm2', ...options })).toEqual({
      messageId: 'm2',
      status: 'queued',
      ahead: 1,
    });
    await pollFor('the slow call to begin', async () => ledgerCounts(ledger).get('slow_safe'));
    killGroup(first);
    // Retried while no worker runs: each waits for one, and is answered as the same message.
    const retries = Promise.all([
      conversations.send(id, 'go slow', { messageId: 'm1', ...options }),
      conversations.send(id, 'then this', { messageId: 'm2', ...options }),
    ]);
    await startWorkerProcess(taskQueue, ledger);
    const [m1, m2] = await retries;
    expect(m1).toEqual({ messageId: 'm1', status: 'started', turnId: `${id}#1` });
    // Where m2 stands now: still queued, or its turn has started.
    expect([
      { messageId: 'm2', status: 'queued', ahead: 1 },
      { messageId: 'm2', status: 'started', turnId: `${id}#2` },
    ]).toContainEqual(m2);

    expect((await conversations.turn(id, 1).result()).text).toBe('recovered');
    const second = await pollFor('turn 2 to start', async () =>
      (await conversations.state(id)).turnCount >= 2 ? conversations.turn(id, 2) : undefined,
    );
    expect((await second.result()).text).toBe('answer to then this');
    const state = await pollFor('the conversation to hear of turn 2', async () => {
      const now = await conversations.state(id);
      return now.running ? undefined : now;
    });
    expect(state).toMatchObject({ turnCount: 2, received: 2, queue: [], next: [] });
    // The slow call ran again on the second worker, with the same key.
    expect(ledgerCounts(ledger).get('slow_safe')).toEqual({ count: 2, keys: new Set([`${id}#1/slow_safe`]) });
  });
});

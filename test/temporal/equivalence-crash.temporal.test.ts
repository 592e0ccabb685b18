import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InProcessExecutor, type TranscriptEvent } from 'durable-turns';
import { SqliteJournal } from '../../executors/journal/sqlite-journal';
import { uniqueTurnId } from '../conformance/support';
import { startCrashChild } from '../support/executors/crash-child-process';
import {
  crashInput,
  crashScript,
  crashTools,
  slowSafeId,
  slowUnsafeId,
} from '../support/executors/crash-turn';
import { spawnSourceChild } from '../support/source-child';
import { testTemporal } from '../support/temporal-env';
import { TemporalKit } from './support/kit';
import { pollFor } from './support/poll';

const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) killGroup(child);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function killGroup(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'equivalence-crash-'));
  dirs.push(dir);
  return dir;
}

function startWorker(taskQueue: string, ledger: string, slowMs: number): Promise<ChildProcess> {
  const { address, namespace } = testTemporal();
  const script = path.join(__dirname, 'support/crash-turn-worker.ts');
  const child = spawnSourceChild(script, [address, namespace, taskQueue, ledger, String(slowMs)], {
    cwd: path.join(__dirname, '../..'),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (d) => {
      if (String(d).includes('WORKER READY')) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`worker process exited (${code}) before it was ready`)));
  });
}

const ledgerIds = (ledger: string) =>
  readFileSync(ledger, { encoding: 'utf8', flag: 'a+' })
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' ')[1]);

const normalised = (events: readonly TranscriptEvent[], turnId: string): TranscriptEvent[] =>
  JSON.parse(JSON.stringify(events).split(turnId).join('<turn>'));

/**
 * The same crash on both executors: a wave of four calls whose host dies while a retry-safe and a
 * non-retry-safe call run. In process the host is a child process killed with SIGKILL and the
 * turn is resumed from its SQLite journal; on Temporal the worker process is killed and another
 * one finishes the turn. The engine decides what a lost attempt means, so the events are the same.
 */
test('a host killed mid-wave leaves the same transcript on both executors', async () => {
  // In process.
  const local = tempDir();
  const localTurn = uniqueTurnId('crash-local');
  const child = startCrashChild({
    path: path.join(local, 'journal.db'),
    ledger: path.join(local, 'ledger'),
    turnId: localTurn,
  });
  try {
    process.kill(await child.ready, 'SIGKILL');
    await child.exited;
  } finally {
    child.killGroup();
  }
  const journal = new SqliteJournal({ path: path.join(local, 'journal.db') });
  const inProcess = await new InProcessExecutor({
    tools: crashTools({ ledger: path.join(local, 'ledger'), slowMs: 20 }),
    model: crashScript(),
    journal,
    owner: 'recovery-host',
  })
    .resumeTurn({ turnId: localTurn, takeOver: true })
    .finally(() => journal.close());

  // On Temporal.
  const remote = tempDir();
  const ledger = path.join(remote, 'ledger');
  const taskQueue = kit.taskQueue('equivalence-crash');
  const first = await startWorker(taskQueue, ledger, 10 * 60_000);
  const remoteTurn = uniqueTurnId('crash-temporal');
  const turn = await kit.client(taskQueue).start({
    turnId: remoteTurn,
    input: crashInput,
    model: 'scripted',
    timing: { heartbeatTimeoutMs: 2_000 },
  });
  // Both slow calls running, both fast ones recorded: then the worker dies.
  await pollFor(
    'the response recorded, the slow calls running and the fast ones done',
    async () => {
      const ran = ledgerIds(ledger);
      const state = await turn.state();
      const done = state.calls.filter((c) => c.status === 'ok').map((c) => c.toolCallId);
      // The response recorded whole, as in process (a worker lost mid-stream is another crash).
      const responded = state.responseIndex === 1;
      return responded && ran.includes(slowSafeId) && ran.includes(slowUnsafeId) && done.length === 2
        ? true
        : undefined;
    },
    { timeoutMs: 30_000 },
  );
  killGroup(first);
  await startWorker(taskQueue, ledger, 20);
  const onTemporal = await turn.result();

  expect(inProcess.status).toBe('completed');
  expect(onTemporal.status).toBe('completed');
  expect(inProcess.outputs.map((o) => [o.toolCallId, o.status])).toEqual([
    ['fast_a', 'ok'],
    [slowSafeId, 'ok'],
    ['fast_b', 'ok'],
    [slowUnsafeId, 'interrupted'],
  ]);
  expect(normalised(onTemporal.events, remoteTurn)).toEqual(normalised(inProcess.events, localTurn));
  // The retry-safe call ran twice with one key, the other once: on Temporal as in process.
  expect(ledgerIds(ledger).filter((id) => id === slowSafeId)).toHaveLength(2);
  expect(ledgerIds(ledger).filter((id) => id === slowUnsafeId)).toHaveLength(1);
}, 120_000);

/**
 * Writes the journal fixtures of `executors/journal/fixtures/` with the code of the commit it runs
 * in: `npx tsx test/support/executors/write-journal-fixtures.ts <out dir>`.
 *
 * Turns last days and hosts upgrade under them, so a SQLite journal written by an older release
 * must still decode and resume. This runs one real turn per scenario on a `SqliteJournal` of its
 * own (one of them in a child process that kills itself mid-wave) and writes, per scenario, the
 * rows exactly as SQLite holds them, the tables' DDL, and what `runTurn` returned, to
 * `<scenario>.r<engine revision>.<commit>.json` (files of older commits are kept, never overwritten). To record an
 * older release, check it out in a throwaway worktree, copy this file and `crash-turn.ts` there
 * and run it (see the fixtures' README). It uses only API that every release so far has.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import {
  defineTool,
  InProcessExecutor,
  type InProcessExecutorOptions,
  type JournalEntry,
  scriptedModel,
  type TurnResult,
} from 'durable-turns';
import { z } from 'zod';
import { SqliteJournal } from '../../../executors/journal/sqlite-journal';
import { crashInput, crashScript, crashTools, fastIds } from './crash-turn';

const root = resolve(__dirname, '../../..');
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Sleeps until the attempt is aborted (the turn's cancel), then rejects. */
const untilAborted = (signal: AbortSignal) =>
  new Promise<never>((_, fail) => {
    if (signal.aborted) fail(new Error('aborted'));
    signal.addEventListener('abort', () => fail(new Error('aborted')), { once: true });
  });

const readFile = defineTool({
  name: 'read_file',
  description: 'Reads a file',
  input: z.object({ path: z.string() }),
  concurrencySafe: true,
  retrySafe: true,
  resources: ({ path }) => [`file:${path}`],
  execute: async ({ path }) => {
    await sleep(20);
    return `contents of ${path}`;
  },
});
const writeFile = defineTool({
  name: 'write_file',
  description: 'Writes a file',
  input: z.object({ path: z.string(), content: z.string() }),
  resources: ({ path }) => [`file:${path}`],
  execute: ({ path, content }) => `wrote ${content.length} bytes to ${path}`,
});
const flakyCount = defineTool({
  name: 'flaky_count',
  description: 'Counts, but fails its first attempt',
  input: z.object({ n: z.number() }),
  concurrencySafe: true,
  retry: { maxAttempts: 3, initialDelayMs: 10 },
  execute: ({ n }, ctx) => {
    if (ctx.attempt === 1) throw new Error('transient failure');
    return { count: n };
  },
});
const deploy = defineTool({
  name: 'deploy',
  description: 'Deploys a service (needs a person to approve)',
  input: z.object({ service: z.string() }),
  requiresApproval: true,
  execute: ({ service }) => `deployed ${service}`,
});
const slowFetch = defineTool({
  name: 'slow_fetch',
  description: 'Fetches slowly, until cancelled',
  input: z.object({ url: z.string() }),
  concurrencySafe: true,
  retrySafe: true,
  execute: ({ url: _url }, ctx) => untilAborted(ctx.signal),
});
const status = defineTool({
  name: 'status',
  description: 'Reads the build status',
  input: z.object({ build: z.string() }),
  concurrencySafe: true,
  execute: ({ build }) => `build ${build} is still running`,
});

interface Scenario {
  scenario: string;
  description: string;
  turnId: string;
  run(journal: SqliteJournal): Promise<TurnResult | undefined>;
}

const executor = (journal: SqliteJournal, options: Omit<InProcessExecutorOptions, 'journal'>) =>
  new InProcessExecutor({ owner: 'fixture-host', ...options, journal });

const scenarios: Scenario[] = [
  {
    scenario: 'wave-barrier-retry-approval',
    description:
      'A model request retried once, then one response: two parallel reads, a write (a barrier), a ' +
      'flaky call retried after its first attempt failed, an approved and a rejected deploy; then a final text.',
    turnId: 'fixture-wave',
    run: (journal) =>
      executor(journal, {
        tools: [readFile, writeFile, flakyCount, deploy],
        model: scriptedModel([
          {
            failFirst: 1,
            text: 'let me look',
            toolCalls: [
              { id: 'a', name: 'read_file', args: { path: 'x' } },
              { id: 'b', name: 'read_file', args: { path: 'y' } },
              { id: 'c', name: 'write_file', args: { path: 'z', content: 'new' } },
              { id: 'd', name: 'flaky_count', args: { n: 4 } },
              { id: 'e', name: 'deploy', args: { service: 'api' } },
              { id: 'f', name: 'deploy', args: { service: 'db' } },
            ],
          },
          { text: 'done' },
        ]),
        modelRetry: { maxAttempts: 3, initialDelayMs: 10 },
        approver: async ({ toolCallId }) =>
          toolCallId === 'e'
            ? { approved: true, reason: 'ok by ops' }
            : { approved: false, reason: 'not today' },
      }).runTurn({ turnId: 'fixture-wave', input: 'read, write, count and deploy' }),
  },
  {
    scenario: 'cancel-mid-wave',
    description:
      'One wave of a fast read and two slow fetches; the turn is cancelled once the read is recorded and both fetches run.',
    turnId: 'fixture-cancel',
    run: async (journal) => {
      const controller = new AbortController();
      let readDone = false;
      const fetching = new Set<string>();
      const maybeCancel = () => {
        if (readDone && fetching.size === 2)
          setTimeout(() => controller.abort(new Error('the user stopped it')), 20);
      };
      return executor(journal, {
        tools: [readFile, slowFetch],
        model: scriptedModel([
          {
            toolCalls: [
              { id: 'r', name: 'read_file', args: { path: 'notes' } },
              { id: 's1', name: 'slow_fetch', args: { url: 'https://example.test/1' } },
              { id: 's2', name: 'slow_fetch', args: { url: 'https://example.test/2' } },
            ],
          },
          { text: 'never asked' },
        ]),
        observers: [
          {
            onEntry: ({ entry }: { entry: JournalEntry }) => {
              if (entry.type === 'tool.attempt_finished' && entry.toolCallId === 'r') readDone = true;
              else if (entry.type === 'tool.attempt_started' && entry.toolCallId.startsWith('s'))
                fetching.add(entry.toolCallId);
              else return;
              maybeCancel();
            },
          },
        ],
      }).runTurn(
        { turnId: 'fixture-cancel', input: 'read my notes and fetch both pages' },
        { signal: controller.signal },
      );
    },
  },
  {
    scenario: 'host-crashed-mid-wave',
    description:
      'The crash turn of test/support/executors/crash-turn.ts (executors/test-support/ before this release) in a child process that SIGKILLs itself once ' +
      'both fast lookups are recorded and both slow calls (one retry-safe, one not) have started. Its turn id ' +
      'contains a slash, so revision-1 and revision-2 idempotency keys differ.',
    turnId: 'tenant-7/crash-1',
    run: async (journal) => {
      journal.close();
      await crashInChild(journalPath('host-crashed-mid-wave'), 'tenant-7/crash-1');
      return undefined;
    },
  },
  {
    scenario: 'loop-warnings',
    description:
      'Four responses in a row ask for the same status call, which answers the same; the third and fourth outputs carry a loop warning, then the model answers.',
    turnId: 'fixture-loop-warn',
    run: (journal) =>
      executor(journal, {
        tools: [status],
        model: scriptedModel([
          ...['s1', 's2', 's3', 's4'].map((id) => ({
            text: 'checking',
            toolCalls: [{ id, name: 'status', args: { build: '42' } }],
          })),
          { text: 'the build is still running; I will stop polling' },
        ]),
      }).runTurn({ turnId: 'fixture-loop-warn', input: 'wait for build 42' }),
  },
  {
    scenario: 'loop-stopped',
    description:
      'The same status call again and again with detection warnAfter 2, stopAfter 3: the turn ends loop_detected.',
    turnId: 'fixture-loop-stop',
    run: (journal) =>
      executor(journal, {
        tools: [status],
        detection: { warnAfter: 2, stopAfter: 3 },
        model: scriptedModel(
          ['s1', 's2', 's3', 's4'].map((id) => ({
            toolCalls: [{ id, name: 'status', args: { build: '7' } }],
          })),
        ),
      }).runTurn({ turnId: 'fixture-loop-stop', input: 'wait for build 7' }),
  },
];

let outDir = '';
let work = '';
const journalPath = (scenario: string) => join(work, `${scenario}.sqlite`);

/** Runs the crash turn in a child process and waits until it has killed itself. */
async function crashInChild(path: string, turnId: string): Promise<void> {
  const child = spawn('npx', ['tsx', __filename, '--crash-child', path, join(work, 'ledger.txt'), turnId], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  await new Promise<void>((done) => child.once('close', () => done()));
}

/** The child: runs the crash turn and SIGKILLs itself mid-wave, leaving started attempts unfinished. */
async function crashChild([path, ledger, turnId]: string[]): Promise<void> {
  if (!path || !ledger || !turnId) throw new Error('usage: --crash-child <sqlite file> <ledger> <turnId>');
  const slowStarted = new Set<string>();
  const fastDurable = new Set<string>();
  const maybeDie = () => {
    if (slowStarted.size === 2 && fastDurable.size === fastIds.length) process.kill(process.pid, 'SIGKILL');
  };
  const executor = new InProcessExecutor({
    tools: crashTools({
      ledger,
      slowMs: 10 * 60_000,
      onSlowStart: (id) => {
        slowStarted.add(id);
        // Let the attempt_started of the other slow call reach the file too.
        setTimeout(maybeDie, 50);
      },
    }),
    model: crashScript(),
    journal: new SqliteJournal({ path }),
    owner: 'crashed-host',
    observers: [
      {
        onEntry: ({ entry }: { entry: JournalEntry }) => {
          if (
            entry.type === 'tool.attempt_finished' &&
            (fastIds as readonly string[]).includes(entry.toolCallId)
          ) {
            fastDurable.add(entry.toolCallId);
            setTimeout(maybeDie, 50);
          }
        },
      },
    ],
  });
  await executor.runTurn({ turnId, input: crashInput });
  throw new Error('the crash turn finished instead of crashing');
}

/** Everything the file holds for the turn, as stored: the rows, and the tables' DDL. */
function dump(path: string, turnId: string) {
  const db = new Database(path, { readonly: true });
  try {
    return {
      ddl: db
        .prepare("SELECT sql FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .pluck()
        .all()
        .map(String),
      turnEntries: db
        .prepare('SELECT turn_id, seq, entry_json FROM turn_entries WHERE turn_id = ? ORDER BY seq')
        .all(turnId),
      turnLeases: db
        .prepare('SELECT turn_id, owner, fencing_token, lease_until FROM turn_leases WHERE turn_id = ?')
        .all(turnId),
    };
  } finally {
    db.close();
  }
}

async function main(args: string[]): Promise<void> {
  if (args[0] === '--crash-child') return crashChild(args.slice(1));
  const [out] = args;
  if (!out) throw new Error('usage: write-journal-fixtures.ts <out dir>');
  outDir = resolve(out);
  mkdirSync(outDir, { recursive: true });
  work = mkdtempSync(join(tmpdir(), 'journal-fixtures-'));
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root }).toString().trim();
  try {
    for (const s of scenarios) {
      const path = journalPath(s.scenario);
      const journal = new SqliteJournal({ path });
      const result = await s.run(journal);
      journal.close();
      const stored = dump(path, s.turnId);
      const started = JSON.parse(String((stored.turnEntries[0] as { entry_json: string }).entry_json));
      const revision: number = started.revision ?? 1;
      const expected = result && {
        status: result.status,
        ...(result.reason ? { reason: result.reason } : {}),
        text: result.text,
        outputs: result.outputs,
        transcript: result.transcript,
        usage: result.usage,
        modelResponses: result.modelResponses,
        toolCalls: result.toolCalls,
      };
      const file = join(outDir, `${s.scenario}.r${revision}.${commit}.json`);
      const fixture = {
        scenario: s.scenario,
        description: s.description,
        commit,
        revision,
        turnId: s.turnId,
        ...stored,
        ...(expected ? { expected } : {}),
      };
      writeFileSync(file, `${JSON.stringify(fixture, null, 2)}\n`);
      process.stdout.write(`${file}: ${stored.turnEntries.length} rows, ${result?.status ?? 'crashed'}\n`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});

import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { parseEncryptionKeys } from '../../codec/encryption-keys';
import { describeJournalContract } from '../../test/support/journal-contract';
import type { LeaseChildOutcome } from '../../test/support/lease-child';
import { sourceChildArgs } from '../../test/support/source-child';
import { JournalError } from './journal-errors';
import { SqliteJournal } from './sqlite-journal';

const repoRoot = resolve(__dirname, '../..');
const leaseChild = join(repoRoot, 'test', 'support', 'lease-child.ts');

function tempFile(): { path: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-journal-'));
  return { path: join(dir, 'journal.db'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

describeJournalContract('SqliteJournal', async ({ now }) => {
  const file = tempFile();
  const journal = new SqliteJournal({ path: file.path, now });
  return {
    journal,
    cleanup: async () => {
      journal.close();
      file.remove();
    },
  };
});

describeJournalContract('SqliteJournal on :memory:', async ({ now }) => {
  const journal = new SqliteJournal({ path: ':memory:', now });
  return { journal, cleanup: async () => journal.close() };
});

/** A racer in its own process; `ready` resolves once it has opened the file and waits for `go`. */
function startRacer(path: string, owner: string, turnId: string) {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    sourceChildArgs(leaseChild, [path, owner, turnId]),
    {
      cwd: repoRoot,
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const lines = createInterface({ input: child.stdout });
  const ready = new Promise<void>((done) => lines.once('line', () => done()));
  const outcome = new Promise<LeaseChildOutcome>((done, fail) => {
    let last = '';
    lines.on('line', (line) => {
      last = line;
    });
    child.on('close', (code) => {
      if (code === 0) done(JSON.parse(last) as LeaseChildOutcome);
      else fail(new Error(`racer ${owner} exited with ${code}: ${stderr}`));
    });
  });
  return { ready, outcome, go: () => child.stdin.end('go\n') };
}

describeJournalContract('SqliteJournal encrypted at rest', async ({ now }) => {
  const file = tempFile();
  const encryption = parseEncryptionKeys(`k0:${randomBytes(32).toString('base64')}`);
  const journal = new SqliteJournal({ path: file.path, now, encryption });
  return {
    journal,
    cleanup: async () => {
      journal.close();
      file.remove();
    },
  };
});

describe('SqliteJournal shared between processes', () => {
  let file: ReturnType<typeof tempFile>;
  beforeEach(() => {
    file = tempFile();
  });
  afterEach(() => file.remove());

  it('gives the lease to exactly one of two processes racing to open the same turn', async () => {
    const racers = ['host-a', 'host-b'].map((owner) => startRacer(file.path, owner, 'turn-1'));
    await Promise.all(racers.map((racer) => racer.ready));
    for (const racer of racers) racer.go();
    const outcomes = await Promise.all(racers.map((racer) => racer.outcome));

    const winners = outcomes.filter((outcome) => outcome.kind === 'acquired');
    const losers = outcomes.filter((outcome) => outcome.kind === 'refused');
    expect(winners).toEqual([{ kind: 'acquired', owner: expect.any(String), fencingToken: 1 }]);
    expect(losers).toEqual([
      { kind: 'refused', owner: expect.any(String), code: 'lease-held', message: expect.any(String) },
    ]);
    expect(losers[0]!.message).toContain(winners[0]!.owner);

    const journal = new SqliteJournal({ path: file.path });
    try {
      const error = await journal
        .open({ turnId: 'turn-1', owner: 'host-c' })
        .catch((thrown: unknown) => thrown);
      expect(JournalError.isInstance(error) && error.code).toBe('lease-held');
    } finally {
      journal.close();
    }
  });

  it('keeps entries and leases across closing and reopening the file', async () => {
    let time = 1_000;
    const now = () => time;
    const first = new SqliteJournal({ path: file.path, now });
    const session = await first.open({ turnId: 'turn-1', owner: 'host-a', leaseMs: 1_000 });
    await session.append([{ type: 'tool.approval_decided', toolCallId: 'call-1', approved: true }], 0);
    await session.append([{ type: 'model.requested', responseIndex: 0 }], 1);
    first.close();

    const second = new SqliteJournal({ path: file.path, now });
    try {
      expect(second.listTurns()).toEqual(['turn-1']);
      const refused = await second
        .open({ turnId: 'turn-1', owner: 'host-b' })
        .catch((thrown: unknown) => thrown);
      expect(JournalError.isInstance(refused) && refused.code).toBe('lease-held');
      time += 1_000;
      const resumed = await second.open({ turnId: 'turn-1', owner: 'host-b' });
      expect(resumed.fencingToken).toBe(session.fencingToken + 1);
      expect(await resumed.load()).toEqual({
        entries: [
          { type: 'tool.approval_decided', toolCallId: 'call-1', approved: true },
          { type: 'model.requested', responseIndex: 0 },
        ],
        version: 2,
      });
    } finally {
      second.close();
    }
  });

  it.each([
    ['is not JSON', '{"type": "turn.opened",'],
    ['is not a journal entry', '{"type":"model.requested","responseIndex":-1}'],
  ])('names the turn and seq when a stored row %s', async (_, entryJson) => {
    const journal = new SqliteJournal({ path: file.path });
    try {
      const session = await journal.open({ turnId: 'turn-1', owner: 'host-a' });
      await session.append(
        [
          { type: 'tool.approval_decided', toolCallId: 'call-1', approved: true },
          { type: 'model.requested', responseIndex: 0 },
        ],
        0,
      );
      const raw = new Database(file.path);
      raw
        .prepare('UPDATE turn_entries SET entry_json = ? WHERE turn_id = ? AND seq = 1')
        .run(entryJson, 'turn-1');
      raw.close();
      await expect(session.load()).rejects.toThrow(
        /turn turn-1: journal entry seq 1 in turn_entries is corrupt/,
      );
    } finally {
      journal.close();
    }
  });
});

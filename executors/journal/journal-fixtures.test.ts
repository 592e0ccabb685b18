import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { InProcessExecutor, isTranscriptEvent, transcriptProblems } from 'durable-turns';
import { z } from 'zod';
import { engineRevision, TurnEngine } from '../../core';
import {
  crashScript,
  crashTools,
  finalText,
  ledgerRuns,
  slowSafeId,
  slowUnsafeId,
} from '../../test/support/executors/crash-turn';
import { storedEntries } from '../../test/support/executors/resume-fixtures';
import { SqliteJournal } from './sqlite-journal';

/**
 * SQLite journals as each release wrote them (see fixtures/README.md and
 * test/support/executors/write-journal-fixtures.ts): turns last days and hosts upgrade under them, so every
 * one must still decode through today's `SqliteJournal`, replay under the rules it began with, and
 * — if its host died — resume.
 */
const fixtureSchema = z.object({
  scenario: z.string(),
  description: z.string(),
  commit: z.string(),
  revision: z.number().int().positive(),
  turnId: z.string(),
  ddl: z.array(z.string()),
  turnEntries: z.array(z.object({ turn_id: z.string(), seq: z.number().int(), entry_json: z.string() })),
  turnLeases: z.array(
    z.object({
      turn_id: z.string(),
      owner: z.string().nullable(),
      fencing_token: z.number().int(),
      lease_until: z.number(),
    }),
  ),
  /** What the writing release's `runTurn` returned, less its events; absent when its host crashed. */
  expected: z.record(z.string(), z.unknown()).optional(),
});
type Fixture = z.infer<typeof fixtureSchema>;

const dir = join(__dirname, 'fixtures');
const fixtures = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((file) => ({ file, ...fixtureSchema.parse(JSON.parse(readFileSync(join(dir, file), 'utf8'))) }));
const finished = fixtures.filter((f) => f.expected !== undefined);
const crashed = fixtures.filter((f) => f.scenario === 'host-crashed-mid-wave');
const scenarios = [
  'wave-barrier-retry-approval',
  'cancel-mid-wave',
  'host-crashed-mid-wave',
  'loop-warnings',
  'loop-stopped',
];

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'journal-fixtures-'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

/** The fixture's file as its release left it: its own tables, its rows, its lease. */
function materialize(fixture: Fixture): string {
  const path = join(work, `${fixture.scenario}.sqlite`);
  const db = new Database(path);
  try {
    for (const ddl of fixture.ddl) db.exec(ddl);
    const entry = db.prepare('INSERT INTO turn_entries (turn_id, seq, entry_json) VALUES (?, ?, ?)');
    for (const row of fixture.turnEntries) entry.run(row.turn_id, row.seq, row.entry_json);
    const lease = db.prepare(
      'INSERT INTO turn_leases (turn_id, owner, fencing_token, lease_until) VALUES (?, ?, ?, ?)',
    );
    for (const row of fixture.turnLeases)
      lease.run(row.turn_id, row.owner, row.fencing_token, row.lease_until);
  } finally {
    db.close();
  }
  return path;
}

/** The entries, loaded the way a host loads them (lease, validation), then released. */
async function load(fixture: Fixture) {
  const journal = new SqliteJournal({ path: materialize(fixture) });
  try {
    const session = await journal.open({ turnId: fixture.turnId, owner: 'fixture-reader', takeOver: true });
    const loaded = await session.load();
    await session.release();
    return loaded;
  } finally {
    journal.close();
  }
}

describe('journal fixtures', () => {
  it('has every scenario for every engine revision up to the current one', () => {
    const revisions = [...new Set(fixtures.map((f) => f.revision))].sort((a, b) => a - b);
    expect(revisions).toEqual(Array.from({ length: engineRevision }, (_, i) => i + 1));
    for (const revision of revisions) {
      const covered = fixtures.filter((f) => f.revision === revision).map((f) => f.scenario);
      expect(new Set(covered)).toEqual(new Set(scenarios));
    }
    for (const f of fixtures) expect(f.file).toBe(`${f.scenario}.r${f.revision}.${f.commit}.json`);
  });

  it('includes journals of the release before revisions existed (faf0450), with no revision recorded', () => {
    const old = fixtures.filter((f) => f.commit === 'faf0450');
    expect(old.map((f) => f.scenario).sort()).toEqual([...scenarios].sort());
    for (const f of old)
      expect(JSON.parse(f.turnEntries[0]?.entry_json ?? '{}')).not.toHaveProperty('revision');
  });
});

describe.each(fixtures.map((f) => [f.file, f] as const))('%s', (_file, fixture) => {
  it('decodes every row through SqliteJournal and replays under the revision it began with', async () => {
    const { entries, version } = await load(fixture);
    expect(version).toBe(fixture.turnEntries.length);
    expect(entries.map((e) => e.type)).toEqual(fixture.turnEntries.map((r) => JSON.parse(r.entry_json).type));
    const engine = TurnEngine.replay(entries);
    expect(engine.view.revision).toBe(fixture.revision);
    expect(engine.turnId).toBe(fixture.turnId);
    expect(engine.finished).toBe(fixture.expected !== undefined);
  });
});

describe.each(finished.map((f) => [f.file, f] as const))('%s, a finished turn', (_file, fixture) => {
  it('replays to the outcome its release returned', async () => {
    const { entries } = await load(fixture);
    const outcome = TurnEngine.replay(entries).outcome();
    const expected = fixture.expected ?? {};
    expect({ status: outcome.status, reason: outcome.reason, outputs: outcome.outputs }).toEqual({
      status: expected.status,
      reason: expected.reason,
      outputs: expected.outputs,
    });
    const { turnId, ...rest } = outcome;
    expect(turnId).toBe(fixture.turnId);
    expect(rest).toEqual(expected);
    expect(transcriptProblems(outcome.transcript)).toEqual([]);
  });
});

describe.each(crashed.map((f) => [f.file, f] as const))(
  '%s, a turn whose host died mid-wave',
  (_file, fixture) => {
    it('resumes with today’s executor: completed calls stay done, the retry-safe call reruns with its revision’s key, the other ends outcome unknown', async () => {
      const path = materialize(fixture);
      const before = storedEntries(path, fixture.turnId);
      expect(
        new Set(before.flatMap((e) => (e.type === 'tool.attempt_started' ? [e.toolCallId] : []))),
      ).toEqual(new Set(['fast_a', slowSafeId, 'fast_b', slowUnsafeId]));
      expect(
        new Set(before.flatMap((e) => (e.type === 'tool.attempt_finished' ? [e.toolCallId] : []))),
      ).toEqual(new Set(['fast_a', 'fast_b']));

      const ledger = join(work, 'ledger.txt');
      const journal = new SqliteJournal({ path });
      try {
        const model = crashScript();
        const recovery = new InProcessExecutor({
          tools: crashTools({ ledger, slowMs: 20 }),
          model,
          journal,
          owner: 'recovery-host',
        });
        // The dead host's lease lapsed long ago: no takeOver needed.
        const result = await recovery.resumeTurn({ turnId: fixture.turnId });

        expect(result.status).toBe('completed');
        expect(result.text).toBe(finalText);
        expect(transcriptProblems(result.transcript)).toEqual([]);
        expect(model.requests.map((r) => r.responseIndex)).toEqual([1]);
        expect(result.outputs.map((o) => [o.toolCallId, o.status])).toEqual([
          ['fast_a', 'ok'],
          [slowSafeId, 'ok'],
          ['fast_b', 'ok'],
          [slowUnsafeId, 'interrupted'],
        ]);
        expect(result.outputs[3]).toMatchObject({
          errorType: 'outcome-unknown',
          content: expect.stringContaining('outcome unknown'),
          attempts: 1,
        });

        // Only the retry-safe call ran again, keyed as its revision keys it: revision 1 joins the
        // raw ids with a slash, revision 2 escapes the slash in the turn id.
        const key =
          fixture.revision === 1 ? `${fixture.turnId}/${slowSafeId}` : `tenant-7%2Fcrash-1/${slowSafeId}`;
        expect(Object.fromEntries(ledgerRuns(readFileSync(ledger, 'utf8')))).toEqual({ [slowSafeId]: [key] });

        const after = storedEntries(path, fixture.turnId);
        expect(after.slice(0, before.length)).toEqual(before);
        expect(after.filter((e) => e.type === 'tool.attempt_lost')).toEqual([
          { type: 'tool.attempt_lost', toolCallId: slowSafeId, attempt: 1, rerun: true },
          { type: 'tool.attempt_lost', toolCallId: slowUnsafeId, attempt: 1, rerun: false },
        ]);
        expect(result.events).toEqual(after.filter(isTranscriptEvent));
        // The turn keeps its rules for life: the resumed journal still replays under its revision.
        expect(TurnEngine.replay(after).view.revision).toBe(fixture.revision);
      } finally {
        journal.close();
      }
    });
  },
);

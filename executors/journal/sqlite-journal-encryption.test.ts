import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { parseEncryptionKeys } from '../../codec/encryption-keys';
import type { JournalEntry } from '../../core';
import { SqliteJournal } from './sqlite-journal';

const marker = 'CARD-4111-MARKER';
const k0 = `k0:${randomBytes(32).toString('base64')}`;
const k1 = `k1:${randomBytes(32).toString('base64')}`;
const entries = (turnId: string): JournalEntry[] => [
  { type: 'turn.started', turnId, input: [{ role: 'user', content: `refund ${marker}` }] },
  { type: 'model.requested', responseIndex: 0 },
];

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sqlite-encrypted-'));
  file = join(dir, 'journal.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function write(journal: SqliteJournal, turnId: string, list: JournalEntry[]): Promise<void> {
  const session = await journal.open({ turnId, owner: 'test' });
  const { version } = await session.load();
  await session.append(list, version);
  await session.release();
}

/** Every byte SQLite wrote, the WAL included: what a stolen disk or backup holds. */
const fileBytes = () =>
  Buffer.concat(
    ['', '-wal'].flatMap((suffix) => {
      try {
        return [readFileSync(`${file}${suffix}`)];
      } catch {
        return [];
      }
    }),
  );

describe('SqliteJournal encrypted at rest', () => {
  test('no entry is in the file in the clear; read back with the key it is the same', async () => {
    const journal = new SqliteJournal({ path: file, encryption: parseEncryptionKeys(k0) });
    await write(journal, 't1', entries('t1'));
    expect(fileBytes().includes(marker)).toBe(false);
    expect(await journal.read({ turnId: 't1' })).toEqual(entries('t1'));
    journal.close();
    // The same turn without encryption: the marker is there (the check above can fail).
    const plain = new SqliteJournal({ path: join(dir, 'plain.db') });
    await write(plain, 't1', entries('t1'));
    expect(
      readFileSync(join(dir, 'plain.db-wal')).includes(marker) ||
        readFileSync(join(dir, 'plain.db')).includes(marker),
    ).toBe(true);
    plain.close();
  });

  test('after a rotation, old rows read with the old key; rows from before encryption was on still read', async () => {
    const clear = new SqliteJournal({ path: file });
    await write(clear, 'before', entries('before'));
    clear.close();
    const first = new SqliteJournal({ path: file, encryption: parseEncryptionKeys(k0) });
    await write(first, 'under-k0', entries('under-k0'));
    first.close();
    const rotated = new SqliteJournal({ path: file, encryption: parseEncryptionKeys(`${k1},${k0}`) });
    await write(rotated, 'under-k1', entries('under-k1'));
    for (const turnId of ['before', 'under-k0', 'under-k1'])
      expect(await rotated.read({ turnId })).toEqual(entries(turnId));
    rotated.close();
  });

  test('a process without the key is told which key id it lacks, not that the row is corrupt', async () => {
    const journal = new SqliteJournal({ path: file, encryption: parseEncryptionKeys(k0) });
    await write(journal, 't1', entries('t1'));
    journal.close();
    const keyless = new SqliteJournal({ path: file, encryption: parseEncryptionKeys(k1) });
    await expect(keyless.read({ turnId: 't1' })).rejects.toThrow(
      /encrypted with key k0, which this process does not hold/,
    );
    keyless.close();
  });

  test('a sealed row copied to another turn does not open there (rows are bound to their place)', async () => {
    const keys = parseEncryptionKeys(k0);
    const journal = new SqliteJournal({ path: file, encryption: keys });
    await write(journal, 'a', entries('a'));
    await write(journal, 'b', entries('b'));
    journal.close();
    const db = new Database(file);
    const row = db
      .prepare("SELECT entry_json FROM turn_entries WHERE turn_id = 'a' AND seq = 0")
      .pluck()
      .get();
    db.prepare("UPDATE turn_entries SET entry_json = ? WHERE turn_id = 'b' AND seq = 0").run(row);
    db.close();
    const reader = new SqliteJournal({ path: file, encryption: keys });
    await expect(reader.read({ turnId: 'b' })).rejects.toThrow(/does not open/);
    reader.close();
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TurnEngine } from './turn-engine';
import { turnSnapshotVersion } from './turn-snapshot';

/** Snapshots as each version of the engine wrote them (a turn of echo calls, cut before its last response). */
const fixtures = join(__dirname, 'fixtures');
const fixture = (version: number): Record<string, unknown> & { detector: Record<string, unknown> } =>
  JSON.parse(readFileSync(join(fixtures, `turn-snapshot-v${version}.json`), 'utf8'));

describe('turn snapshots', () => {
  it('has a fixture for every version up to the current one', () => {
    const versions = readdirSync(fixtures)
      .map((name) => /^turn-snapshot-v(\d+)\.json$/.exec(name)?.[1])
      .filter((v) => v !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
    expect(versions).toEqual(Array.from({ length: turnSnapshotVersion }, (_, i) => i + 1));
  });

  it.each(Array.from({ length: turnSnapshotVersion }, (_, i) => i + 1))(
    'restores a version-%i snapshot, and the restored turn asks the model again',
    (version) => {
      const engine = TurnEngine.restore(fixture(version));
      const snapshot = engine.snapshot();
      expect(snapshot.schemaVersion).toBe(turnSnapshotVersion);
      expect(snapshot.messages).toEqual(fixture(version).messages);
      expect(engine.next(1).op.kind).toBe('call-model');
    },
  );

  it('restores a version-1 detector from its latest attempts and drops its whole-turn counts', () => {
    const old = fixture(1);
    const detector = TurnEngine.restore(old).snapshot().detector;
    expect(detector).toEqual({ recent: old.detector.history, latest: [] });
    // Both versions saw the same turn: the old latest attempts are the new window.
    expect(detector.recent).toEqual(fixture(2).detector.recent);
  });

  it('writes the current version, which restores to the very same snapshot', () => {
    const snapshot = TurnEngine.restore(fixture(turnSnapshotVersion)).snapshot();
    expect(snapshot).toEqual(fixture(turnSnapshotVersion));
    expect(TurnEngine.restore(JSON.parse(JSON.stringify(snapshot))).snapshot()).toEqual(snapshot);
  });

  it('refuses a snapshot of a version it does not know, saying which field is wrong', () => {
    expect(() => TurnEngine.restore({ ...fixture(turnSnapshotVersion), schemaVersion: 99 })).toThrow(
      /cannot restore turn state: schemaVersion/,
    );
  });
});

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { filesUnder, fixtureDir, readCorpus, sharedCorpusDir } from './corpus';

/**
 * The suite replays its own copy of the corpus, since a CI clone may have no `../shared`; the copy
 * must be the corpus itself, every file byte for byte, and nothing else.
 */
describe('the repository copy of the recorded provider streams', () => {
  const shared = existsSync(sharedCorpusDir);

  (shared ? test : test.skip)(
    `holds every file of ${shared ? sharedCorpusDir : '../shared/provider-streams (absent here, so not compared)'} byte for byte, and no other`,
    () => {
      const expected = filesUnder(sharedCorpusDir);
      expect(filesUnder(fixtureDir)).toEqual(expected);
      const differing = expected.filter(
        (file) => !readFileSync(join(fixtureDir, file)).equals(readFileSync(join(sharedCorpusDir, file))),
      );
      expect(differing).toEqual([]);
    },
  );

  test('holds whole conversations: each numbered step follows the one before, and SOURCES.md names each file', () => {
    const conversations = readCorpus();
    expect(conversations.length).toBeGreaterThan(0);
    const sources = readFileSync(join(fixtureDir, 'SOURCES.md'), 'utf8');
    const recordings = filesUnder(fixtureDir).filter((file) => file.endsWith('.sse'));
    const unnamed = recordings.filter(
      (file) => !sources.includes(`\`${file.slice(file.indexOf('/') + 1)}\``),
    );
    expect(unnamed).toEqual([]);
    expect(conversations.reduce((sum, c) => sum + c.steps.length, 0)).toBe(recordings.length);
  });
});

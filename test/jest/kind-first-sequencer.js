// The order test files start in: longest first, so that no long file starts late and runs alone
// at the end while the other workers sit idle. Jest knows a file's time only from earlier runs on
// this machine; in a fresh clone (as in CI) it ranks files by size, which started the 7-line
// conformance file (two minutes of server turns) after every unit test. So a file's expected time
// is, in order: jest's own record of it, else the committed record (file-seconds.json: written by
// `DURABLE_TURNS_WRITE_TEST_TIMES=1 npm test`), else a guess by kind. Failed files still go first.
const Sequencer = require('@jest/test-sequencer').default;
const { statSync } = require('node:fs');
const path = require('node:path');
const recorded = require('./file-seconds.json');

const root = path.join(__dirname, '..', '..');

/** Seconds a file of this kind takes when nothing better is known: server and package tests wait on servers and installs. */
const guessSeconds = (file) => (/\.(temporal|package)\.test\.ts$/.test(file) ? 15 : 1);

const size = (file) => statSync(file, { throwIfNoEntry: false })?.size ?? 0;

class KindFirstSequencer extends Sequencer {
  sort(tests) {
    const expected = new Map();
    for (const test of tests) {
      test.duration = this.time(test);
      const relative = path.relative(root, test.path).split(path.sep).join('/');
      const seconds = test.duration != null ? test.duration / 1000 : recorded[relative];
      expected.set(test, seconds ?? guessSeconds(relative));
    }
    return [...tests].sort(
      (a, b) =>
        Number(this.hasFailed(b)) - Number(this.hasFailed(a)) ||
        expected.get(b) - expected.get(a) ||
        size(b.path) - size(a.path),
    );
  }
}

module.exports = KindFirstSequencer;

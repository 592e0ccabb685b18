// The order test files start in. Jest runs the files it has timed before longest first and the
// files it has never timed (every file in a fresh clone, as in CI) by size, which put the suite's
// longest server tests after hundreds of small unit files, and workers sat idle at the end while one
// of them ran alone. Here server and package tests start first (they wait on servers and installs,
// and take longest), then unit tests; within each, jest's own order.
const Sequencer = require('@jest/test-sequencer').default;
const { statSync } = require('node:fs');

/** How early a file of each kind starts when jest has no time for it: lower first. */
const kindRank = (path) => (/\.(temporal|package)\.test\.ts$/.test(path) ? 0 : 1);

const size = (path) => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

class KindFirstSequencer extends Sequencer {
  sort(tests) {
    for (const test of tests) test.duration = this.time(test);
    const timed = (test) => (test.duration == null ? 0 : 1);
    return [...tests].sort(
      (a, b) =>
        Number(this.hasFailed(b)) - Number(this.hasFailed(a)) ||
        kindRank(a.path) - kindRank(b.path) ||
        // As jest does: a file it has not timed is new, and may be long; then longest first.
        timed(a) - timed(b) ||
        (b.duration ?? 0) - (a.duration ?? 0) ||
        size(b.path) - size(a.path),
    );
  }
}

module.exports = KindFirstSequencer;

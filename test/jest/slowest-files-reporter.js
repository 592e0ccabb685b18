// Prints the ten slowest test files after a run, on stderr below jest's summary: where the
// suite's minutes go, so a new slow test is seen the day it lands. With
// DURABLE_TURNS_WRITE_TEST_TIMES=1 it also records every file's time in file-seconds.json, which
// orders the next runs in a fresh clone (see kind-first-sequencer.js).
const { writeFileSync } = require('node:fs');
const path = require('node:path');

const shown = 10;
const root = path.join(__dirname, '..', '..');

class SlowestFilesReporter {
  onRunComplete(_contexts, results) {
    const files = results.testResults
      .map((result) => ({
        file: path.relative(root, result.testFilePath).split(path.sep).join('/'),
        seconds: (result.perfStats.end - result.perfStats.start) / 1000,
      }))
      .filter(({ seconds }) => Number.isFinite(seconds))
      .sort((a, b) => b.seconds - a.seconds);
    if (files.length === 0) return;
    const wall = (Date.now() - results.startTime) / 1000;
    const lines = files
      .slice(0, shown)
      .map(({ file, seconds }) => `${seconds.toFixed(1).padStart(7)} s  ${file}`);
    process.stderr.write(
      `\nThe ${Math.min(shown, files.length)} slowest test files (the run took ${wall.toFixed(0)} s):\n${lines.join('\n')}\n`,
    );
    if (process.env.DURABLE_TURNS_WRITE_TEST_TIMES) {
      const record = Object.fromEntries(
        files.filter(({ seconds }) => seconds >= 1).map(({ file, seconds }) => [file, Math.round(seconds)]),
      );
      writeFileSync(path.join(__dirname, 'file-seconds.json'), `${JSON.stringify(record, null, 2)}\n`);
      process.stderr.write("Recorded the files' times in test/jest/file-seconds.json.\n");
    }
  }
}

module.exports = SlowestFilesReporter;

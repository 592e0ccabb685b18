// Prints the ten slowest test files after a run, on stderr below jest's summary: where the
// suite's minutes go, so a new slow test is seen the day it lands.
const shown = 10;

class SlowestFilesReporter {
  onRunComplete(_contexts, results) {
    const files = results.testResults
      .map((result) => ({
        file: result.testFilePath.slice(process.cwd().length + 1),
        seconds: (result.perfStats.end - result.perfStats.start) / 1000,
      }))
      .filter(({ seconds }) => Number.isFinite(seconds))
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, shown);
    if (files.length === 0) return;
    const wall = (Date.now() - results.startTime) / 1000;
    const lines = files.map(({ file, seconds }) => `${seconds.toFixed(1).padStart(7)} s  ${file}`);
    process.stderr.write(
      `\nThe ${files.length} slowest test files (the run took ${wall.toFixed(0)} s):\n${lines.join('\n')}\n`,
    );
  }
}

module.exports = SlowestFilesReporter;

import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Writes a bench's report to bench/results/<file> (git-ignored) and prints it. */
export async function writeReport(file: string, report: unknown): Promise<void> {
  const out = path.join(__dirname, 'results', file);
  await mkdir(path.dirname(out), { recursive: true });
  await writeFile(out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(JSON.stringify(report, null, 2));
}

/** Runs a bench's main, exiting non-zero with the error when it fails. */
export function runBench(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}

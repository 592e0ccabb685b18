import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from '@jest/globals';
import { sourceChildArgs } from '../support/source-child';

const root = path.join(__dirname, '../..');

test("the README's In code example runs: the same turn completes in process and on Temporal, reading the real file", async () => {
  // The suite's dev server is in TEMPORAL_ADDRESS (global setup), so the example starts nothing.
  const { stdout } = await promisify(execFile)(
    process.execPath,
    sourceChildArgs(path.join(root, 'examples/in-code.ts')),
    { cwd: root, env: process.env, timeout: 120_000 },
  );
  const size = JSON.stringify(await readFile(path.join(root, 'package.json'), 'utf8')).length;
  expect(stdout).toContain(`in process: completed: package.json has ${size} characters.`);
  expect(stdout).toContain(`on Temporal: completed: package.json has ${size} characters.`);
  expect(stdout).toMatch(/^ {2}read_file ok$/m);
}, 150_000);

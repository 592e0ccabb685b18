import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import {
  consumerTs,
  consumerTsconfig,
  entryPoints,
  importNamesEsm,
  internals,
  listExportsCjs,
  misuseTs,
  openSqliteCjs,
  turnCjs,
  turnEsm,
} from './consumer-files';

/**
 * The package as a user gets it: `npm pack` (which builds through `prepack`), installed into a fresh
 * project outside this repository, used from plain Node and from TypeScript. Nothing here resolves
 * to the repo's sources: the project sees only the tarball and what npm installs for it.
 */
const root = path.join(__dirname, '../..');
const run = promisify(execFile);
let project: string;
let packedFiles: string[];

async function node(args: string[]): Promise<string> {
  return (await run(process.execPath, args, { cwd: project, timeout: 60_000 })).stdout;
}

async function tsc(file: string): Promise<{ ok: boolean; output: string }> {
  const tsconfig = { ...consumerTsconfig, files: [file] };
  await writeFile(path.join(project, 'tsconfig.json'), JSON.stringify(tsconfig));
  const bin = path.join(root, 'node_modules/.bin/tsc');
  return run(bin, ['-p', project], { cwd: project, timeout: 120_000 }).then(
    ({ stdout }) => ({ ok: true, output: stdout }),
    (error: { stdout?: string }) => ({ ok: false, output: error.stdout ?? String(error) }),
  );
}

async function versionOf(name: string): Promise<string> {
  const manifest = JSON.parse(await readFile(path.join(root, 'node_modules', name, 'package.json'), 'utf8'));
  return manifest.version as string;
}

beforeAll(async () => {
  project = await mkdtemp(path.join(os.tmpdir(), 'durable-turns-consumer-'));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', project], {
    cwd: root,
    timeout: 120_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as {
    filename: string;
    files: { path: string }[];
  }[];
  if (!packed) throw new Error(`npm pack printed no result: ${stdout}`);
  packedFiles = packed.files.map((f) => f.path);
  // better-sqlite3 is an optional peer: not installed yet, so the first SQLite test sees it missing.
  await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  await run(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      path.join(project, packed.filename),
      `zod@${await versionOf('zod')}`,
      `@types/node@${await versionOf('@types/node')}`,
    ],
    { cwd: project, timeout: 240_000 },
  );
}, 300_000);

afterAll(async () => {
  if (project) await rm(project, { recursive: true, force: true });
});

test('the tarball carries the built code with its declarations, the README, the license and the docs; no tests, benches or source maps', () => {
  for (const entry of [
    'dist/index.js',
    'dist/index.d.ts',
    'dist/worker/index.js',
    'dist/client/index.d.ts',
    'dist/executors/journal/sqlite-index.js',
  ])
    expect(packedFiles).toContain(entry);
  expect(packedFiles).toEqual(
    expect.arrayContaining(['README.md', 'LICENSE', 'package.json', 'docs/architecture.md']),
  );
  const stray = packedFiles.filter(
    (f) =>
      /(^|\/)(test|bench)\/|\.test\.|\.map$|^[^d][^/]*\.ts$/.test(f) ||
      !/^(dist|docs)\/|^(README\.md|LICENSE|package\.json)$/.test(f),
  );
  expect(stray).toEqual([]);
  // A workflow bundle is made by the user's build, for their @temporalio/workflow: never shipped.
  expect(packedFiles.filter((f) => f.startsWith('dist/workflow-bundle/'))).toEqual([]);
});

test('the installed durable-turns bin runs from plain Node and lists its commands', async () => {
  const { stdout } = await run(path.join(project, 'node_modules/.bin/durable-turns'), ['--help'], {
    cwd: project,
    timeout: 60_000,
  });
  for (const command of ['dev', 'worker', 'run', 'watch', 'list', 'show', 'cancel', 'approve', 'reject'])
    expect(stdout).toMatch(new RegExp(`^ +${command}\\b`, 'm'));
});

test("the installed durable-turns-bundle bin bundles the turn workflow for the project's own @temporalio/workflow", async () => {
  const { stdout } = await run(
    path.join(project, 'node_modules/.bin/durable-turns-bundle'),
    ['--out', 'build/turn-workflows.js'],
    {
      cwd: project,
      timeout: 180_000,
    },
  );
  expect(stdout).toMatch(/wrote build\/turn-workflows\.js and build\/turn-workflows\.manifest\.json/);
  const manifest = JSON.parse(
    await readFile(path.join(project, 'build/turn-workflows.manifest.json'), 'utf8'),
  );
  const installed = JSON.parse(
    await readFile(path.join(project, 'node_modules/@temporalio/workflow/package.json'), 'utf8'),
  );
  expect(manifest.temporalWorkflowVersion).toBe(installed.version);
  const code = await readFile(path.join(project, 'build/turn-workflows.js'), 'utf8');
  expect(code).toContain('turnWorkflow');
}, 240_000);

test('every entry point loads with require from plain Node, exporting what users need and none of the engine internals', async () => {
  const names = JSON.parse(await node(['-e', listExportsCjs])) as Record<string, string[]>;
  for (const [entry, expected] of Object.entries(entryPoints))
    expect(names[entry]).toEqual(expect.arrayContaining([...expected]));
  expect(names['durable-turns']?.filter((n) => internals.includes(n))).toEqual([]);
});

test('every entry point loads with import from an ES module, with named exports', async () => {
  await writeFile(path.join(project, 'names.mjs'), importNamesEsm);
  const { defined, total } = JSON.parse(await node(['names.mjs'])) as { defined: number; total: number };
  expect(total).toBe(Object.values(entryPoints).flat().length);
  expect(defined).toBe(total);
});

test('a consumer file type-checks against the shipped declarations, and a misuse of a tool argument does not', async () => {
  await writeFile(path.join(project, 'consumer.ts'), consumerTs);
  await writeFile(path.join(project, 'misuse.ts'), misuseTs);
  // Without skipLibCheck, so our .d.ts files are checked too; other packages' declarations (some of
  // Temporal's do not resolve under nodenext without @types/ms) are their business.
  const good = await tsc('consumer.ts');
  const ours = good.output
    .split('\n')
    .filter((line) => /error TS/.test(line) && !/^node_modules\/(?!durable-turns\/)/.test(line));
  expect(ours).toEqual([]);
  expect(good.output).toMatch(/^(node_modules\/@temporalio\/[^\n]*\n( {2}[^\n]*\n)*)*$/);
  const bad = await tsc('misuse.ts');
  expect(bad.ok).toBe(false);
  expect(bad.output).toMatch(
    /misuse\.ts\(\d+,\d+\): error TS2339: Property 'toUpperCase' does not exist on type 'number'/,
  );
}, 240_000);

test('without the AI SDK (an optional peer), making a UI stream says how to install it', async () => {
  await writeFile(
    path.join(project, 'ui-stream.cjs'),
    "require('durable-turns/ui-stream').turnUiStreamResponse({ watch: async function* () {}, messageId: 'm' });\n",
  );
  const failure = await node(['ui-stream.cjs']).then(
    () => 'made',
    (error: { stderr?: string }) => error.stderr ?? '',
  );
  expect(failure).toContain(
    'durable-turns/ui-stream needs the AI SDK (an optional peer dependency): `npm install ai@7`',
  );
});

describe('the SQLite journal (better-sqlite3 is an optional peer)', () => {
  test('without better-sqlite3, opening one says how to install it and allow its build', async () => {
    await writeFile(path.join(project, 'open-sqlite.cjs'), openSqliteCjs);
    const failure = await node(['open-sqlite.cjs']).then(
      () => 'opened',
      (error: { stderr?: string }) => error.stderr ?? '',
    );
    expect(failure).toContain('better-sqlite3 is not installed');
    expect(failure).toContain('npm install better-sqlite3@12');
    expect(failure).toContain('"allowScripts": { "better-sqlite3": true }');
  });

  test('with better-sqlite3, an in-process turn runs from CommonJS and from ESM and leaves one output per call', async () => {
    // This repo's copy, already built: compiling better-sqlite3 (a minute) is its own test, not ours.
    await symlink(
      path.join(root, 'node_modules/better-sqlite3'),
      path.join(project, 'node_modules/better-sqlite3'),
      'dir',
    );
    await writeFile(path.join(project, 'turn.cjs'), turnCjs);
    await writeFile(path.join(project, 'turn.mjs'), turnEsm);
    for (const script of ['turn.cjs', 'turn.mjs']) {
      const result = JSON.parse(await node([script, path.join(project, `${script}.sqlite`)]));
      expect(result).toEqual({
        status: 'completed',
        text: 'done',
        outputs: [
          ['c1', 'ok', expect.objectContaining({ loud: 'HELLO' })],
          ['c2', 'ok', expect.objectContaining({ loud: 'WORLD' })],
        ],
      });
    }
  });
});

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { defaultTurnWorkflowBundlePath } from './build-turn-workflow-bundle';
import { turnWorkflowBundleManifestPath } from './turn-workflow-bundle-manifest';

const root = path.join(__dirname, '..');
const packageJson = z
  .object({ bin: z.record(z.string(), z.string()), scripts: z.record(z.string(), z.string()) })
  .parse(JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')));

const dir = mkdtempSync(path.join(os.tmpdir(), 'bundle-pack-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('the tarball carries no workflow bundle, even when the build made one, and carries what the build needs', () => {
  // The package as a build leaves it: dist/ with the compiled code and the bundle where workers look.
  writeFileSync(path.join(dir, 'package.json'), readFileSync(path.join(root, 'package.json')));
  const inDist = (file: string) => path.join(dir, 'dist', path.relative(root, file));
  const files = [
    inDist(path.join(root, 'index.js')),
    inDist(path.join(root, 'worker', 'durable-turns-bundle.js')),
    inDist(defaultTurnWorkflowBundlePath),
    inDist(turnWorkflowBundleManifestPath({ codePath: defaultTurnWorkflowBundlePath })),
  ];
  for (const file of files) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, '// built\n');
  }
  const [packed] = z.array(z.object({ files: z.array(z.object({ path: z.string() })) })).parse(
    JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
        cwd: dir,
        encoding: 'utf8',
      }),
    ),
  );
  const listed = packed?.files.map((f) => f.path) ?? [];
  expect(listed).toEqual(expect.arrayContaining(['dist/index.js', 'dist/worker/durable-turns-bundle.js']));
  expect(listed.filter((f) => f.includes('workflow-bundle/'))).toEqual([]);
});

test('the bin is the compiled bundle command, and the build runs it', () => {
  const bin = packageJson.bin['durable-turns-bundle'] ?? '';
  expect(path.normalize(bin)).toBe(path.join('dist', 'worker', 'durable-turns-bundle.js'));
  expect(existsSync(path.join(root, 'worker', 'durable-turns-bundle.ts'))).toBe(true);
  expect(packageJson.scripts.build).toContain(`node ${bin.replace(/^\.\//, '')}`);
});

import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** The folders that ship: their code must not lean on tests, jest, or on the package by its own name. */
const libraryFolders = [
  'core',
  'contract',
  'executors',
  'workflows',
  'activities',
  'worker',
  'client',
  'codec',
  'models',
  'devserver',
  'cli',
  'tracing',
  'metrics',
  'dashboard',
];
const root = path.join(__dirname, '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return name === 'fixtures' ? [] : sources(file);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [file] : [];
  });
}

const importPattern = /(?:from|import\(?|require\()\s*'([^']+)'/g;

test('no library module imports test code, jest, or the package by name', () => {
  const problems: string[] = [];
  for (const folder of libraryFolders) {
    for (const file of sources(path.join(root, folder))) {
      const text = readFileSync(file, 'utf8');
      for (const [, spec = ''] of text.matchAll(importPattern)) {
        const resolved = spec.startsWith('.')
          ? path.relative(root, path.resolve(path.dirname(file), spec))
          : spec;
        if (
          resolved.startsWith('test/') ||
          resolved.includes('test-support') ||
          /^(@jest\/|jest)/.test(spec) ||
          /^durable-turns(\/|$)/.test(spec)
        )
          problems.push(`${path.relative(root, file)} imports ${spec}`);
      }
    }
  }
  expect(problems).toEqual([]);
});

test('devserver/ is Node only: it imports nothing else of the project', () => {
  const problems = sources(path.join(root, 'devserver')).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(importPattern)]
      .map(([, spec = '']) => spec)
      .filter((spec) => spec.startsWith('..'))
      .map((spec) => `${path.relative(root, file)} imports ${spec}`),
  );
  expect(problems).toEqual([]);
});

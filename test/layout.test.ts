import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The layout is the architecture: which folder may import which is a table in
 * docs/architecture.md ("Imports between folders"), and this test holds the code to it.
 */
const root = path.join(__dirname, '..');
const importTableHeading = '## Imports between folders';

/** The table's rows: each library folder and the folders it may import (type-only imports count). */
function allowedImports(): Map<string, Set<string>> {
  const page = readFileSync(path.join(root, 'docs', 'architecture.md'), 'utf8');
  const start = page.indexOf(importTableHeading);
  if (start < 0) throw new Error(`docs/architecture.md has no "${importTableHeading}" section`);
  const section = page.slice(start + importTableHeading.length).split('\n## ')[0] ?? '';
  const rows = new Map<string, Set<string>>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const folder = /^`([a-z-]+)\/`$/.exec(cells[1] ?? '')?.[1];
    if (!folder) continue;
    rows.set(folder, new Set([...(cells[2] ?? '').matchAll(/`([a-z-]+)\/`/g)].map(([, name = '']) => name)));
  }
  return rows;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return name === 'fixtures' || name === 'public' ? [] : sources(file);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [file] : [];
  });
}

interface Import {
  spec: string;
  /** `import type` / `export type`: gone from the emitted code. */
  typeOnly: boolean;
}

function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const found: Import[] = [];
  for (const [, type, spec = ''] of text.matchAll(/^(?:import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)'/gms))
    found.push({ spec, typeOnly: type !== undefined });
  for (const [, spec = ''] of text.matchAll(/(?:^import\s+|import\(|require\()'([^']+)'/gm))
    found.push({ spec, typeOnly: false });
  return found;
}

/** The project file a relative import names, or undefined for a package. */
function resolveFile(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts'), base])
    if (statSync(candidate, { throwIfNoEntry: false })?.isFile()) return path.relative(root, candidate);
  throw new Error(`${path.relative(root, from)} imports ${spec}, which is no file here`);
}

const folderOf = (file: string) => file.split(path.sep)[0] ?? '';
const table = allowedImports();
const libraryFolders = [...table.keys()];

/** Every import between project files of the library folders, type-only ones marked. */
const edges = libraryFolders.flatMap((folder) =>
  sources(path.join(root, folder)).flatMap((absolute) => {
    const from = path.relative(root, absolute);
    return importsOf(absolute).flatMap(({ spec, typeOnly }) => {
      const to = resolveFile(absolute, spec);
      return to === undefined ? [] : [{ from, to, spec, typeOnly }];
    });
  }),
);

test('the import table names every folder of the library, and only folders that exist', () => {
  // A folder of code at the root, apart from the ones the table leaves out on purpose.
  const onDisk = readdirSync(root).filter(
    (name) =>
      !name.startsWith('.') &&
      !['node_modules', 'dist', 'bench', 'test', 'examples'].includes(name) &&
      statSync(path.join(root, name)).isDirectory() &&
      sources(path.join(root, name)).length > 0,
  );
  expect([...libraryFolders].sort()).toEqual(onDisk.sort());
  for (const [folder, allowed] of table)
    for (const other of allowed)
      expect({ folder, imports: other, known: table.has(other) }).toMatchObject({ known: true });
});

test('each folder imports only the folders the table allows it', () => {
  const outside = edges
    .filter(({ from, to }) => folderOf(to) !== folderOf(from) && table.has(folderOf(to)))
    .filter(({ from, to }) => !table.get(folderOf(from))?.has(folderOf(to)))
    .map(({ from, spec }) => `${from} imports ${spec}`);
  expect(outside).toEqual([]);
});

test('the table allows no loop between folders', () => {
  const loops: string[] = [];
  const visit = (folder: string, trail: string[]) => {
    if (trail.includes(folder)) {
      loops.push([...trail.slice(trail.indexOf(folder)), folder].join(' → '));
      return;
    }
    for (const next of table.get(folder) ?? []) visit(next, [...trail, folder]);
  };
  for (const folder of libraryFolders) visit(folder, []);
  expect(loops).toEqual([]);
});

/**
 * Strongly connected files (Tarjan): a loop of files is one component. A loop made only of
 * `import type` may stay (nothing of it runs); one with any runtime import may not.
 */
test('no file import loop holds a runtime import', () => {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const components: string[][] = [];
  const connect = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file) ?? 0);
    stack.push(file);
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        connect(to);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(to) ?? 0));
      } else if (stack.includes(to)) low.set(file, Math.min(low.get(file) ?? 0, index.get(to) ?? 0));
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
        component.push(member);
        if (member === file) break;
      }
      if (component.length > 1) components.push(component);
    }
  };
  for (const file of next.keys()) if (!index.has(file)) connect(file);
  const runtimeLoops = components
    .filter((files) =>
      edges.some(({ from, to, typeOnly }) => !typeOnly && files.includes(from) && files.includes(to)),
    )
    .map((files) => files.sort().join(' ⇄ '));
  expect(runtimeLoops).toEqual([]);
});

test('no library module imports test code, jest, or the package by name', () => {
  const problems: string[] = [];
  for (const folder of libraryFolders) {
    for (const file of sources(path.join(root, folder))) {
      for (const { spec } of importsOf(file)) {
        const resolved = spec.startsWith('.')
          ? path.relative(root, path.resolve(path.dirname(file), spec))
          : spec;
        if (
          /^(test|bench|examples)\//.test(resolved) ||
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

/** Test files and the test helpers they reach (library modules are not followed). */
function reachesTestHelper({ file, helper }: { file: string; helper: string }): boolean {
  const seen = new Set<string>();
  const walk = (current: string): boolean => {
    if (current === helper) return true;
    if (seen.has(current)) return false;
    seen.add(current);
    return importsOf(path.join(root, current)).some(({ spec }) => {
      const to = resolveFile(path.join(root, current), spec);
      return to !== undefined && (to.startsWith(`test${path.sep}`) || to.endsWith('.test.ts')) && walk(to);
    });
  };
  return walk(file);
}

test('a test that needs a Temporal server says so in its name (*.temporal.test.ts)', () => {
  // In a whole run every jest worker inherits the server's address from the global setup, so a
  // misnamed test would pass there, and fail alone or in `npm run test:unit`.
  const sharedServer = path.join('test', 'support', 'temporal-env.ts');
  const ownServer = /\b(startDevServer|ensureTemporal)\(\{/;
  const misnamed = readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts') && !/^(node_modules|dist)\//.test(file))
    .filter((file) => !/\.(temporal|package)\.test\.ts$/.test(file))
    .filter(
      (file) =>
        reachesTestHelper({ file, helper: sharedServer }) ||
        ownServer.test(readFileSync(path.join(root, file), 'utf8')),
    );
  expect(misnamed).toEqual([]);
});

test('no shipped file is over 400 lines: each does one thing, readable in one sitting', () => {
  const maxLines = 400;
  const long = libraryFolders
    .flatMap((folder) => sources(path.join(root, folder)))
    .map((file) => ({
      file: path.relative(root, file),
      lines: readFileSync(file, 'utf8').split('\n').length,
    }))
    .filter(({ lines }) => lines > maxLines)
    .map(({ file, lines }) => `${file}: ${lines} lines`);
  expect(long).toEqual([]);
});

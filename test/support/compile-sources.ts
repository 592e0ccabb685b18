import { promises as fs } from 'node:fs';
import path from 'node:path';
import { transformFile } from '@swc/core';

const root = path.join(__dirname, '../..');
/** Every folder a child process may load code from; tests and benches of their own are left out. */
const sourceFolders = [
  'activities',
  'blobs',
  'cli',
  'client',
  'codec',
  'contract',
  'core',
  'dashboard',
  'devserver',
  'examples',
  'executors',
  'mcp',
  'metrics',
  'models',
  'test',
  'tracing',
  'ui-stream',
  'worker',
  'workflows',
];

const selfReferences = {
  'durable-turns': ['./index.ts'],
  'durable-turns/sqlite': ['./executors/journal/sqlite-index.ts'],
  'durable-turns/*': ['./*/index.ts'],
};

/**
 * The sources as CommonJS under `outDir`, in the same tree (so `__dirname`-relative files such as
 * the dashboard's pages and the workflows the bundler reads are where the code expects them), with
 * `node_modules` linked. The suite compiles them once, with SWC as jest does, and its child
 * processes run them with plain Node: under tsx's loader each child cost ~0.9 s more CPU to start,
 * and the suite starts a few hundred. Inline source maps keep a child's stack traces in the sources.
 */
export async function compileSources({ outDir }: { outDir: string }): Promise<{ files: number }> {
  const files = (await Promise.all(sourceFolders.map((folder) => filesUnder(folder)))).flat();
  await Promise.all(
    [...new Set(files.map((file) => path.dirname(file)))].map((dir) =>
      fs.mkdir(path.join(outDir, dir), { recursive: true }),
    ),
  );
  await Promise.all([
    ...files.map((file) => compileOrCopy({ file, outDir })),
    compileOrCopy({ file: 'index.ts', outDir }),
    fs.copyFile(path.join(root, 'package.json'), path.join(outDir, 'package.json')),
    fs.symlink(path.join(root, 'node_modules'), path.join(outDir, 'node_modules'), 'dir'),
  ]);
  return { files: files.length + 1 };
}

/** Where a source file (`.ts`, absolute or from the repository's root) is once compiled. */
export function compiledPath({ source, outDir }: { source: string; outDir: string }): string | undefined {
  const relative = path.relative(root, path.resolve(root, source));
  if (relative.startsWith('..') || !/\.[cm]?ts$/.test(relative)) return undefined;
  return path.join(outDir, relative.replace(/\.([cm]?)ts$/, '.$1js'));
}

async function filesUnder(folder: string): Promise<string[]> {
  const entries = await fs.readdir(path.join(root, folder), { recursive: true, withFileTypes: true });
  return (
    entries
      .filter((entry) => entry.isFile() && !/\.test\.ts$|\.d\.ts$/.test(entry.name))
      // Children run the tests' support code, not their recordings (megabytes to copy).
      .filter((entry) => folder !== 'test' || entry.name.endsWith('.ts'))
      .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
  );
}

async function compileOrCopy({ file, outDir }: { file: string; outDir: string }): Promise<void> {
  const source = path.join(root, file);
  const target = compiledPath({ source, outDir });
  if (!target) return fs.copyFile(source, path.join(outDir, file));
  const { code } = await transformFile(source, {
    jsc: {
      target: 'es2022',
      parser: { syntax: 'typescript' },
      // `durable-turns/…` as tsconfig.json maps it (to the sources), not the package's built `dist`.
      baseUrl: root,
      paths: selfReferences,
    },
    // `import()` stays one, as tsc leaves it: the CLI loads agent modules (CommonJS or ESM) with it.
    module: { type: 'commonjs', ignoreDynamic: true },
    sourceMaps: 'inline',
  });
  await fs.writeFile(target, code);
}

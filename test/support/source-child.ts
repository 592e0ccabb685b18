import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { compiledPath } from './compile-sources';

/** Set by the suite's global setup: where it compiled the sources (see compile-sources.ts). */
export const compiledSourcesVariable = 'DURABLE_TURNS_TEST_COMPILED_SOURCES';

const tsxLoader = pathToFileURL(require.resolve('tsx')).href;

/**
 * A source file in a Node process of its own: the suite's compiled copy with plain Node when the
 * global setup made one, else the TypeScript itself under tsx's loader (a test run on its own).
 * Arguments that name a source file (an agent module, a child script) are mapped the same way, so
 * a compiled child loads compiled modules.
 *
 * One Node process either way: `npx tsx script` is three (npm, the tsx command, then node), costs
 * more CPU per start, and the tsx command relays a signal to its child and, when the child has not
 * acknowledged it within 30 ms (a busy machine), signals it again and then kills it with exit 130:
 * a test of a signal would then test tsx, not durable-turns.
 */
export function sourceChildArgs(script: string, args: readonly string[] = []): string[] {
  const outDir = process.env[compiledSourcesVariable];
  if (!outDir) return ['--import', tsxLoader, script, ...args];
  const compiled = (word: string) => {
    const target = compiledPath({ source: word, outDir });
    return target && existsSync(target) ? target : undefined;
  };
  const main = compiled(script);
  if (!main) throw new Error(`${script} is not among the compiled sources in ${outDir}`);
  return ['--enable-source-maps', main, ...args.map((arg) => compiled(arg) ?? arg)];
}

/** `script` with `args` in a Node process of its own (see `sourceChildArgs`). */
export function spawnSourceChild(
  script: string,
  args: readonly string[],
  options: SpawnOptions,
): ChildProcess {
  return spawn(process.execPath, sourceChildArgs(script, args), options);
}

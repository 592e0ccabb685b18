import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/**
 * Node with tsx's loader, as one process. `npx tsx script` is three (npm, the tsx command, then
 * node), costs ~0.7 s of CPU more per start (minutes over the suite's children), and the tsx
 * command relays a signal to its child and, when the child has not acknowledged it within 30 ms (a
 * busy machine), signals it again and then kills it with exit 130: a test of a signal would then
 * test tsx, not durable-turns.
 */
export const tsxLoader = pathToFileURL(require.resolve('tsx')).href;

/** The arguments after `node` that run `script` (TypeScript) with `args`. */
export function tsxNodeArgs(script: string, args: readonly string[] = []): string[] {
  return ['--import', tsxLoader, script, ...args];
}

/** `script` with `args` in a Node process of its own, with tsx's loader. */
export function spawnTsx(script: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  return spawn(process.execPath, tsxNodeArgs(script, args), options);
}

import { promises as fs } from 'node:fs';
import path from 'node:path';
import { compileSources } from './support/compile-sources';
import { compiledSourcesVariable } from './support/source-child';
import { throwawayStateRoot } from './support/throwaway-dir';

/**
 * For the whole run, whichever projects it selects: the sources compiled once for the tests' child
 * processes (see compile-sources.ts), named in the environment the test workers inherit.
 */
export default async function compileSetup(): Promise<void> {
  const outDir = await fs.mkdtemp(path.join(throwawayStateRoot().dir, 'durable-turns-compiled-'));
  await compileSources({ outDir });
  process.env[compiledSourcesVariable] = outDir;
}

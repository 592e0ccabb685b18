import { promises as fs } from 'node:fs';
import { compiledSourcesVariable } from './support/source-child';

export default async function compileTeardown(): Promise<void> {
  const outDir = process.env[compiledSourcesVariable];
  if (outDir) await fs.rm(outDir, { recursive: true, force: true });
}

import { promises as fs } from 'node:fs';
import { takeTestTemporalHandle } from './support/test-temporal-handle';

/** Stops the suite's dev server (a no-op for a server the user named) and removes its temp state. */
export default async function globalTeardown(): Promise<void> {
  const handle = takeTestTemporalHandle();
  if (handle === undefined) return;
  await handle.temporal.stop();
  await fs.rm(handle.stateDir, { recursive: true, force: true });
}

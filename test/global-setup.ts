import { promises as fs } from 'node:fs';
import path from 'node:path';
import { turnSearchAttributeList } from '../contract/search-attributes';
import { ensureTemporal } from '../devserver';
import { saveTestTemporalHandle } from './support/test-temporal-handle';
import { throwawayStateRoot } from './support/throwaway-dir';

/**
 * Starts one headless Temporal dev server for the whole suite, on a fresh SQLite file (in memory
 * where the machine allows) so runs do not see each other's workflows, and tells the tests where
 * it is through TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE (test workers inherit this process's
 * environment). A TEMPORAL_ADDRESS the user set is honoured: then nothing is started. The first
 * run on a machine may build the Temporal CLI; its progress lines show here.
 */
export default async function globalSetup(): Promise<void> {
  const stateDir = await fs.mkdtemp(path.join(throwawayStateRoot().dir, 'durable-turns-test-'));
  const temporal = await ensureTemporal({
    searchAttributes: turnSearchAttributeList,
    stateDir,
    headless: true,
    // The state is deleted after the run, so teardown need not wait ~3 s for a clean shutdown.
    stopTimeoutMs: 0,
    log: (line) => process.stderr.write(`[durable-turns test setup] ${line}\n`),
  }).catch(async (error: unknown) => {
    await fs.rm(stateDir, { recursive: true, force: true });
    throw error;
  });
  process.env.TEMPORAL_ADDRESS = temporal.address;
  process.env.TEMPORAL_NAMESPACE = temporal.namespace;
  saveTestTemporalHandle({ handle: { temporal, stateDir } });
}

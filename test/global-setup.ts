import { promises as fs } from 'node:fs';
import path from 'node:path';
import { turnSearchAttributeList } from '../contract/search-attributes';
import { ensureTemporal } from '../devserver';
import { buildTurnWorkflowBundle } from '../worker/build-turn-workflow-bundle';
import { ensureChromium } from './support/ensure-chromium';
import { suiteWorkflowBundleVariable } from './support/suite-workflow-bundle';
import { saveTestTemporalHandle } from './support/test-temporal-handle';
import { throwawayStateRoot } from './support/throwaway-dir';

/**
 * Starts one headless Temporal dev server for the whole suite, on a fresh SQLite file (in memory
 * where the machine allows) so runs do not see each other's workflows, and tells the tests where
 * it is through TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE (test workers inherit this process's
 * environment). A TEMPORAL_ADDRESS the user set is honoured: then nothing is started. The first
 * run on a machine may build the Temporal CLI; its progress lines show here.
 *
 * Meanwhile it bundles the turn workflow once, from the sources as they are now, and names the
 * bundle in DURABLE_TURNS_WORKFLOW_BUNDLE: every worker the tests create (in their own processes
 * too) runs it instead of bundling again, ~5 s of CPU each, which was minutes of the suite.
 * First of all it makes sure of Chromium for the browser tests (see ensureChromium).
 */
export default async function globalSetup(): Promise<void> {
  const log = (line: string) => process.stderr.write(`[durable-turns test setup] ${line}\n`);
  ensureChromium({ log });
  const stateDir = await fs.mkdtemp(path.join(throwawayStateRoot().dir, 'durable-turns-test-'));
  const [temporal, bundle] = await Promise.allSettled([
    ensureTemporal({
      searchAttributes: turnSearchAttributeList,
      stateDir,
      headless: true,
      // The state is deleted after the run, so teardown need not wait ~3 s for a clean shutdown.
      stopTimeoutMs: 0,
      log,
    }),
    buildTurnWorkflowBundle({ outFile: path.join(stateDir, 'workflow-bundle', 'turn-workflows.js') }),
  ]);
  if (temporal.status === 'rejected' || bundle.status === 'rejected') {
    if (temporal.status === 'fulfilled') await temporal.value.stop();
    await fs.rm(stateDir, { recursive: true, force: true });
    throw temporal.status === 'rejected' ? temporal.reason : (bundle as PromiseRejectedResult).reason;
  }
  process.env.TEMPORAL_ADDRESS = temporal.value.address;
  process.env.TEMPORAL_NAMESPACE = temporal.value.namespace;
  process.env[suiteWorkflowBundleVariable] = bundle.value.codePath;
  saveTestTemporalHandle({ handle: { temporal: temporal.value, stateDir } });
}

import { readFile } from 'node:fs/promises';
import {
  type BuiltTurnWorkflowBundle,
  buildTurnWorkflowBundle,
} from '../../worker/build-turn-workflow-bundle';
import { loadTurnWorkflowBundle } from '../../worker/load-turn-workflow-bundle';
import { type TurnWorkflowBundle, turnWorkflowBundle } from '../../worker/turn-workflow-bundle';
import { workflowInterceptorModuleIds } from '../../worker/workflow-interceptor-modules';
import { writeTurnWorkflowBundle } from '../../worker/write-turn-workflow-bundle';

/** The environment variable through which the suite's global setup names its prebuilt bundle. */
export const suiteWorkflowBundleVariable = 'DURABLE_TURNS_WORKFLOW_BUNDLE';

/**
 * The turn workflow bundle for replays in tests: the one the suite's global setup built (named by
 * DURABLE_TURNS_WORKFLOW_BUNDLE, which every worker the suite creates runs too), else bundled now.
 * Bundling costs ~3 s and ~5 s of CPU per test process; the suite builds it once.
 */
export async function suiteWorkflowBundle(): Promise<TurnWorkflowBundle> {
  const codePath = process.env[suiteWorkflowBundleVariable]?.trim();
  if (!codePath) return turnWorkflowBundle();
  const loaded = await loadTurnWorkflowBundle({
    codePath,
    interceptorModuleIds: workflowInterceptorModuleIds(),
  });
  if (!loaded.ok) throw new Error(`the suite's workflow bundle is unusable: ${loaded.reason}`);
  return loaded.bundle;
}

/**
 * A prebuilt bundle at `outFile`, as `buildTurnWorkflowBundle` writes it, for a test that hands
 * workers a bundle of its own (or spoils one): the suite's code written there with its manifest,
 * else built now. The suite's bundle is built by `buildTurnWorkflowBundle` from the same sources.
 */
export async function suiteWorkflowBundleAt(outFile: string): Promise<BuiltTurnWorkflowBundle> {
  const codePath = process.env[suiteWorkflowBundleVariable]?.trim();
  if (!codePath) return buildTurnWorkflowBundle({ outFile });
  return writeTurnWorkflowBundle({
    code: await readFile(codePath, 'utf8'),
    outFile,
    interceptorModuleIds: workflowInterceptorModuleIds(),
  });
}

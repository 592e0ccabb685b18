import { loadTurnWorkflowBundle } from '../../worker/load-turn-workflow-bundle';
import { type TurnWorkflowBundle, turnWorkflowBundle } from '../../worker/turn-workflow-bundle';
import { workflowInterceptorModuleIds } from '../../worker/workflow-interceptor-modules';

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

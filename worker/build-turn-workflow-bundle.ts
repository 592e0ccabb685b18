import path from 'node:path';
import { turnWorkflowBundle } from './turn-workflow-bundle';
import { workflowInterceptorModuleIds } from './workflow-interceptor-modules';
import { type WrittenTurnWorkflowBundle, writeTurnWorkflowBundle } from './write-turn-workflow-bundle';

/**
 * Where a worker looks for a prebuilt bundle when it is not told: inside this package
 * (dist/workflow-bundle/ once built), so a reinstall that may bring another `@temporalio/workflow`
 * also removes the bundle made for the old one. Not in the published tarball (package.json `files`).
 */
export const defaultTurnWorkflowBundlePath = path.join(
  __dirname,
  '..',
  'workflow-bundle',
  'turn-workflows.js',
);

export interface BuildTurnWorkflowBundleOptions {
  /** The code file to write (default: defaultTurnWorkflowBundlePath); the manifest goes beside it. */
  outFile?: string;
  /**
   * Workflow interceptor modules to bundle besides the turn worker's own; pass the same list as
   * `createTurnWorker`'s `workflowInterceptorModules`, or the worker will not use the bundle.
   */
  workflowInterceptorModules?: readonly string[];
}

export type BuiltTurnWorkflowBundle = WrittenTurnWorkflowBundle;

/**
 * Bundles the turn workflow ahead of time, for workers to load instead of bundling at start: writes
 * the code to `outFile` and a manifest of what it was built from (the installed `@temporalio/workflow`,
 * this package's version, the interceptor modules, the code's hash) beside it.
 */
export async function buildTurnWorkflowBundle({
  outFile = defaultTurnWorkflowBundlePath,
  workflowInterceptorModules = [],
}: BuildTurnWorkflowBundleOptions = {}): Promise<BuiltTurnWorkflowBundle> {
  const interceptorModuleIds = workflowInterceptorModuleIds({ extra: workflowInterceptorModules });
  const { code } = await turnWorkflowBundle({ interceptorModuleIds });
  return writeTurnWorkflowBundle({ code, outFile, interceptorModuleIds });
}

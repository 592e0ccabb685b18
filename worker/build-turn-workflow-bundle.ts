import { createHash } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { durableTurnsVersion, installedTemporalWorkflowVersion } from './installed-versions';
import { turnWorkflowBundle } from './turn-workflow-bundle';
import {
  type TurnWorkflowBundleManifest,
  turnWorkflowBundleManifestPath,
} from './turn-workflow-bundle-manifest';
import { workflowInterceptorModuleIds } from './workflow-interceptor-modules';

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

export interface BuiltTurnWorkflowBundle {
  codePath: string;
  manifestPath: string;
  manifest: TurnWorkflowBundleManifest;
}

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
  const codePath = path.resolve(outFile);
  const manifestPath = turnWorkflowBundleManifestPath({ codePath });
  const manifest: TurnWorkflowBundleManifest = {
    format: 1,
    temporalWorkflowVersion: installedTemporalWorkflowVersion(),
    durableTurnsVersion: durableTurnsVersion(),
    workflowInterceptorModules: interceptorModuleIds,
    codeSha256: createHash('sha256').update(code).digest('hex'),
    builtAt: new Date().toISOString(),
  };
  await mkdir(path.dirname(codePath), { recursive: true });
  // Each file appears whole (a worker starting meanwhile sees the old pair or a hash mismatch, never half a file).
  await writeWhole({ file: codePath, text: code });
  await writeWhole({ file: manifestPath, text: `${JSON.stringify(manifest, null, 2)}\n` });
  return { codePath, manifestPath, manifest };
}

async function writeWhole({ file, text }: { file: string; text: string }): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, file);
}

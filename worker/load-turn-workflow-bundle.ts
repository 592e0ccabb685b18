import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isDeepStrictEqual } from 'node:util';
import { durableTurnsVersion } from '../core/package-version';
import { installedTemporalWorkflowVersion } from './installed-versions';
import type { TurnWorkflowBundle } from './turn-workflow-bundle';
import {
  readTurnWorkflowBundleManifest,
  type TurnWorkflowBundleManifest,
  turnWorkflowBundleManifestPath,
} from './turn-workflow-bundle-manifest';

export type LoadedTurnWorkflowBundle =
  | { ok: true; bundle: TurnWorkflowBundle; manifest: TurnWorkflowBundleManifest }
  | { ok: false; reason: string };

/**
 * The prebuilt bundle at `codePath` if this worker can run it: its manifest is valid, it was built
 * for the installed `@temporalio/workflow` and this durable-turns, with exactly the interceptor
 * modules this worker installs, and the code is the code the manifest describes. Otherwise why not.
 */
export async function loadTurnWorkflowBundle({
  codePath,
  interceptorModuleIds,
}: {
  codePath: string;
  interceptorModuleIds: readonly string[];
}): Promise<LoadedTurnWorkflowBundle> {
  let code: string;
  try {
    code = await readFile(codePath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { ok: false, reason: `there is no prebuilt bundle at ${codePath}` };
    return { ok: false, reason: `cannot read ${codePath}: ${String(error)}` };
  }
  const read = await readTurnWorkflowBundleManifest({
    manifestPath: turnWorkflowBundleManifestPath({ codePath }),
  });
  if (!read.ok) return { ok: false, reason: read.reason };
  const { manifest } = read;
  const stale = staleness({ manifest, code, interceptorModuleIds });
  if (stale) return { ok: false, reason: `the bundle at ${codePath} is stale: ${stale}` };
  return { ok: true, bundle: { code }, manifest };
}

function staleness({
  manifest,
  code,
  interceptorModuleIds,
}: {
  manifest: TurnWorkflowBundleManifest;
  code: string;
  interceptorModuleIds: readonly string[];
}): string | undefined {
  const temporal = installedTemporalWorkflowVersion();
  if (manifest.temporalWorkflowVersion !== temporal)
    return `it was built with @temporalio/workflow ${manifest.temporalWorkflowVersion}, and ${temporal} is installed`;
  const ours = durableTurnsVersion;
  if (manifest.durableTurnsVersion !== ours)
    return `it was built from durable-turns ${manifest.durableTurnsVersion}, and this is ${ours}`;
  if (!isDeepStrictEqual(manifest.workflowInterceptorModules, [...interceptorModuleIds]))
    return `its workflow interceptor modules ${list(manifest.workflowInterceptorModules)} differ from the worker's ${list(interceptorModuleIds)}`;
  if (createHash('sha256').update(code).digest('hex') !== manifest.codeSha256)
    return 'its code is not the code its manifest describes (changed after it was built)';
  return undefined;
}

const list = (ids: readonly string[]) => (ids.length === 0 ? '(none)' : `[${ids.join(', ')}]`);

import { createHash } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { durableTurnsVersion } from '../core/package-version';
import { installedTemporalWorkflowVersion } from './installed-versions';
import {
  type TurnWorkflowBundleManifest,
  turnWorkflowBundleManifestPath,
} from './turn-workflow-bundle-manifest';

export interface WrittenTurnWorkflowBundle {
  codePath: string;
  manifestPath: string;
  manifest: TurnWorkflowBundleManifest;
}

/**
 * Writes bundled workflow code to `outFile` and, beside it, the manifest of what it was built from
 * (the installed `@temporalio/workflow`, this package's version, the interceptor modules bundled
 * in, the code's hash), so a worker can tell whether it may run it.
 */
export async function writeTurnWorkflowBundle({
  code,
  outFile,
  interceptorModuleIds,
}: {
  code: string;
  outFile: string;
  interceptorModuleIds: readonly string[];
}): Promise<WrittenTurnWorkflowBundle> {
  const codePath = path.resolve(outFile);
  const manifestPath = turnWorkflowBundleManifestPath({ codePath });
  const manifest: TurnWorkflowBundleManifest = {
    format: 1,
    temporalWorkflowVersion: installedTemporalWorkflowVersion(),
    durableTurnsVersion: durableTurnsVersion,
    workflowInterceptorModules: [...interceptorModuleIds],
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

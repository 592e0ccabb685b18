import { readFile } from 'node:fs/promises';
import { z } from 'zod';

/**
 * What a prebuilt turn workflow bundle was built from, written beside its code: a worker uses the
 * bundle only when all of it still holds (see loadTurnWorkflowBundle).
 */
export const turnWorkflowBundleManifestSchema = z.object({
  format: z.literal(1),
  /** The `@temporalio/workflow` the code was bundled with: the worker's must be the same. */
  temporalWorkflowVersion: z.string().min(1),
  /** The durable-turns whose workflow code it is. */
  durableTurnsVersion: z.string().min(1),
  /** The workflow interceptor modules bundled in, in order (ids as `workflowInterceptorModuleIds` makes them). */
  workflowInterceptorModules: z.array(z.string()),
  /** Of the code file, so a bundle replaced or cut short after it was built is not taken for this one. */
  codeSha256: z.string().regex(/^[0-9a-f]{64}$/),
  builtAt: z.iso.datetime(),
});
export type TurnWorkflowBundleManifest = z.infer<typeof turnWorkflowBundleManifestSchema>;

/** The manifest of the bundle at `codePath`: `build/turn-workflows.js` → `build/turn-workflows.manifest.json`. */
export function turnWorkflowBundleManifestPath({ codePath }: { codePath: string }): string {
  return `${codePath.replace(/\.[cm]?js$/, '')}.manifest.json`;
}

export type ManifestRead = { ok: true; manifest: TurnWorkflowBundleManifest } | { ok: false; reason: string };

/** Reads and validates a manifest; says why it cannot be used rather than throwing. */
export async function readTurnWorkflowBundleManifest({
  manifestPath,
}: {
  manifestPath: string;
}): Promise<ManifestRead> {
  let text: string;
  try {
    text = await readFile(manifestPath, 'utf8');
  } catch (error) {
    return { ok: false, reason: `cannot read its manifest ${manifestPath}: ${String(error)}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `its manifest ${manifestPath} is not JSON (${String(error)})` };
  }
  const parsed = turnWorkflowBundleManifestSchema.safeParse(json);
  if (!parsed.success)
    return {
      ok: false,
      reason: `its manifest ${manifestPath} is not a turn workflow bundle manifest (${z.prettifyError(parsed.error)})`,
    };
  return { ok: true, manifest: parsed.data };
}

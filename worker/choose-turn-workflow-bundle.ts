import { defaultTurnWorkflowBundlePath } from './build-turn-workflow-bundle';
import { loadTurnWorkflowBundle } from './load-turn-workflow-bundle';
import { type TurnWorkflowBundle, turnWorkflowBundle } from './turn-workflow-bundle';

export type TurnWorkflowBundleSource =
  | { kind: 'prebuilt'; path: string }
  | { kind: 'bundled-at-start'; reason: string };

const logged = new Set<string>();

/**
 * The workflow code a turn worker runs. A bundle the operator named (`explicitPath`) must be usable,
 * else this throws: they asked for it, and bundling instead would hide a broken build. Otherwise the
 * bundle at `defaultPath` if usable, else the workflow bundled now, saying once per process why.
 * `explicitPath: false` bundles now without looking.
 */
export async function chooseTurnWorkflowBundle({
  explicitPath,
  defaultPath = defaultTurnWorkflowBundlePath,
  interceptorModuleIds,
  log,
}: {
  explicitPath: string | false | undefined;
  defaultPath?: string;
  interceptorModuleIds: readonly string[];
  log: (message: string) => void;
}): Promise<{ bundle: TurnWorkflowBundle; source: TurnWorkflowBundleSource }> {
  if (explicitPath === false) {
    return {
      bundle: await turnWorkflowBundle({ interceptorModuleIds }),
      source: { kind: 'bundled-at-start', reason: 'asked to (workflowBundlePath: false)' },
    };
  }
  const codePath = explicitPath ?? defaultPath;
  const loaded = await loadTurnWorkflowBundle({ codePath, interceptorModuleIds });
  if (loaded.ok) return { bundle: loaded.bundle, source: { kind: 'prebuilt', path: codePath } };
  if (explicitPath !== undefined)
    throw new Error(
      `cannot use the workflow bundle ${codePath}: ${loaded.reason}. Build it with \`npx durable-turns-bundle --out ${codePath}\` ` +
        '(with the same --interceptor modules as the worker) where the worker is installed, or leave ' +
        'workflowBundlePath / DURABLE_TURNS_WORKFLOW_BUNDLE unset to bundle at start.',
    );
  const message =
    `durable-turns: bundling the turn workflow at start (seconds before the first turn) because ${loaded.reason}; ` +
    'run `npx durable-turns-bundle` in your build to start faster.';
  if (!logged.has(message)) {
    logged.add(message);
    log(message);
  }
  return {
    bundle: await turnWorkflowBundle({ interceptorModuleIds }),
    source: { kind: 'bundled-at-start', reason: loaded.reason },
  };
}

import { bundleWorkflowCode } from '@temporalio/worker';
import { turnWorkflowWebpackConfig } from './turn-workflow-webpack-config';
import {
  resolveWorkflowInterceptorModule,
  workflowInterceptorModuleIds,
} from './workflow-interceptor-modules';

export interface TurnWorkflowBundle {
  code: string;
}

const bundles = new Map<string, Promise<TurnWorkflowBundle>>();

/**
 * The turn workflow bundled now (webpack: seconds), with the interceptor modules whose ids are
 * given (default: the ones every turn worker installs); once per process and interceptor list,
 * since every worker with that list runs the same code.
 */
export function turnWorkflowBundle({
  interceptorModuleIds = workflowInterceptorModuleIds(),
}: {
  interceptorModuleIds?: readonly string[];
} = {}): Promise<TurnWorkflowBundle> {
  const key = interceptorModuleIds.join('\n');
  let bundle = bundles.get(key);
  if (!bundle) {
    bundle = bundleWorkflowCode({
      workflowsPath: require.resolve('../workflows'),
      workflowInterceptorModules: interceptorModuleIds.map((id) => resolveWorkflowInterceptorModule({ id })),
      webpackConfigHook: (config) => turnWorkflowWebpackConfig({ config }),
      preloadModules: turnWorkflowPreloadModules(),
      logger: quietLogger,
    }).then(({ code }) => ({ code }));
    // A failed bundle is not kept: the next worker tries again.
    bundle.catch(() => bundles.delete(key));
    bundles.set(key, bundle);
  }
  return bundle;
}

/**
 * Modules evaluated once per workflow context and shared by every run on it (see
 * workflows/sandbox/preloaded-zod.ts for why that is sound): zod.
 */
export function turnWorkflowPreloadModules(): string[] {
  return [require.resolve('../workflows/sandbox/preloaded-zod')];
}

const quietLogger = {
  log: () => {},
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};

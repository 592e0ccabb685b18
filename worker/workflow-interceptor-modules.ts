import path from 'node:path';

/**
 * The workflow interceptor modules every turn worker installs, by path from the package root (the
 * folder holding workflows/), without extension, so the same id names the TypeScript source and the
 * built JavaScript. A worker's bundle must carry exactly these (plus the worker's own extra modules),
 * so a prebuilt bundle records them and is not used when they differ. The OpenTelemetry one is
 * always there, tracing or not: it traces only turns started with a trace context (others cost
 * nothing), and one workflow code for every worker means a prebuilt bundle fits whatever the
 * worker's environment says, and turning tracing on never changes the code that replays a turn.
 */
export const turnWorkflowInterceptorModules: readonly string[] = ['tracing/workflow-interceptors'];

const ownPrefix = 'durable-turns:';
const packageRoot = path.join(__dirname, '..');

/**
 * The ids of the interceptor modules a worker with these extra modules installs, in order: ours as
 * `durable-turns:<path>`, then the extra ones (relative paths made absolute against the current
 * directory; package names as given).
 */
export function workflowInterceptorModuleIds({ extra = [] }: { extra?: readonly string[] } = {}): string[] {
  return [
    ...turnWorkflowInterceptorModules.map((m) => `${ownPrefix}${m}`),
    ...extra.map((m) => (m.startsWith('.') ? path.resolve(m) : m)),
  ];
}

/** The file the bundler should load for an id (the bundler resolves from inside this package, not the user's). */
export function resolveWorkflowInterceptorModule({ id }: { id: string }): string {
  if (id.startsWith(ownPrefix)) return require.resolve(path.join(packageRoot, id.slice(ownPrefix.length)));
  return require.resolve(id, { paths: [process.cwd()] });
}

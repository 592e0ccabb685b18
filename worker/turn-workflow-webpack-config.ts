import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { BundleOptions } from '@temporalio/worker';
import { z } from 'zod';
import { type IntrinsicName, intrinsics } from '../workflows/sandbox/intrinsics';

type WebpackConfiguration = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];
type WebpackPlugin = NonNullable<WebpackConfiguration['plugins']>[number];

/**
 * The turn workflow's webpack config: Temporal's (`bundleWorkflowCode`'s) made lean, since every
 * worker pays at `Worker.create` for each byte of the bundle (it decodes, parses and re-encodes the
 * inline source map, and compiles the code in each workflow thread).
 *
 * - The source map keeps its mappings (stack traces still name the original file and line) but not
 *   the sources' text (`inline-nosources-source-map`): that text was most of the bundle, and only
 *   Temporal's enhanced stack trace with `showStackTraceSources` reads it.
 * - Unused exports are tracked (webpack's production default, off in Temporal's development mode),
 *   which drops whole modules nobody uses (zod's locales, …). Nothing is minified.
 * - zod resolves to its ES module build. Our compiled code `require`s zod, which picks its CommonJS
 *   build, whose index pulls in everything (every locale); of the ES build webpack can tell which
 *   parts are used. Only bare `zod` is aliased (all the workflow imports), so one zod is bundled.
 *
 * - Every free `Object`, `Math`, `JSON`, … in a bundled module is bound to the copy that
 *   `workflows/sandbox/intrinsics.ts` read once (webpack's `ProvidePlugin`): in the sandbox a global read is
 *   ~25× slower than a binding, and a workflow task reads thousands.
 *
 * None of this changes what the workflow does, only which unused code it carries and how fast it
 * reads the built-ins.
 */
export function turnWorkflowWebpackConfig({
  config,
  bindIntrinsics = true,
}: {
  config: WebpackConfiguration;
  /** False leaves built-ins as global reads (to measure what binding them saves). */
  bindIntrinsics?: boolean;
}): WebpackConfiguration {
  const zodEntry = esModuleEntry({ packageName: 'zod' });
  return {
    ...config,
    devtool: 'inline-nosources-source-map',
    // Exports nobody uses are marked, so modules that only re-export them (flagged free of side
    // effects in their package.json, as zod's are) are left out; `sideEffects: 'flag'` is already on.
    optimization: { ...config.optimization, usedExports: true },
    plugins: [...(config.plugins ?? []), ...(bindIntrinsics ? [intrinsicsPlugin()] : [])],
    resolve: {
      ...config.resolve,
      alias: { ...aliasesOf({ config }), ...(zodEntry === undefined ? {} : { zod$: zodEntry }) },
    },
  };
}

function aliasesOf({ config }: { config: WebpackConfiguration }): Record<string, string | false | string[]> {
  const alias = config.resolve?.alias;
  if (alias === undefined) return {};
  // Temporal's config gives an object; webpack also allows an array, which we have no reason to meet.
  if (Array.isArray(alias))
    throw new Error(
      'the workflow webpack config has resolve.alias as an array; turnWorkflowWebpackConfig expects an object (as @temporalio/worker gives it)',
    );
  return alias;
}

const packageJsonSchema = z.object({
  exports: z.object({ '.': z.object({ import: z.string() }) }),
});

/**
 * The file a package's ES module `import` resolves to, for the package this module itself would
 * load (so the one our compiled code `require`s); undefined when its package.json names none that
 * simply, and then the bundle just keeps the CommonJS build: a bigger bundle, the same behaviour.
 */
function esModuleEntry({ packageName }: { packageName: string }): string | undefined {
  const manifestPath = require.resolve(`${packageName}/package.json`);
  const parsed = packageJsonSchema.safeParse(JSON.parse(readFileSync(manifestPath, 'utf8')));
  return parsed.success ? path.join(path.dirname(manifestPath), parsed.data.exports['.'].import) : undefined;
}

/**
 * Binds each free built-in name in a module to `workflows/sandbox/intrinsics.ts`'s copy. The plugin comes
 * from the webpack that `@temporalio/worker` bundles with, so it taps that compiler's hooks.
 */
function intrinsicsPlugin(): WebpackPlugin {
  const webpackPath = require.resolve('webpack', { paths: [require.resolve('@temporalio/worker')] });
  const { ProvidePlugin } = require(webpackPath) as {
    ProvidePlugin: new (definitions: Record<string, string[]>) => WebpackPlugin;
  };
  const intrinsicsModule = require.resolve('../workflows/sandbox/intrinsics');
  return new ProvidePlugin(
    Object.fromEntries(
      (Object.keys(intrinsics) as IntrinsicName[]).map((name) => [
        name,
        [intrinsicsModule, 'intrinsics', name],
      ]),
    ),
  );
}

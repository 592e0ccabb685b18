import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { BundleOptions } from '@temporalio/worker';
import { z } from 'zod';

type WebpackConfiguration = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];

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
 * None of this changes what the workflow does, only which unused code it carries.
 */
export function turnWorkflowWebpackConfig({
  config,
}: {
  config: WebpackConfiguration;
}): WebpackConfiguration {
  const zodEntry = esModuleEntry({ packageName: 'zod' });
  return {
    ...config,
    devtool: 'inline-nosources-source-map',
    // Exports nobody uses are marked, so modules that only re-export them (flagged free of side
    // effects in their package.json, as zod's are) are left out; `sideEffects: 'flag'` is already on.
    optimization: { ...config.optimization, usedExports: true },
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

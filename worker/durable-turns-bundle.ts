#!/usr/bin/env node
/**
 * `durable-turns-bundle`: bundles the turn workflow ahead of time, for the installed
 * `@temporalio/workflow`, so workers load it instead of bundling at start. Run it in your build,
 * after `npm ci`:
 *
 *   npx durable-turns-bundle                                  (into this package: workers find it)
 *   npx durable-turns-bundle --out build/turn-workflows.js    (then workflowBundlePath /
 *                                                              DURABLE_TURNS_WORKFLOW_BUNDLE names it)
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildTurnWorkflowBundle, defaultTurnWorkflowBundlePath } from './build-turn-workflow-bundle';

const usage = `usage: durable-turns-bundle [--out <file.js>] [--interceptor <module>]...

  --out          where to write the bundle; its manifest goes beside it as <file>.manifest.json
                 (default: ${defaultTurnWorkflowBundlePath}, where workers look when not told)
  --interceptor  a workflow interceptor module to bundle besides the turn worker's own (repeatable);
                 give the worker the same list (createTurnWorker's workflowInterceptorModules)`;

async function main() {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' },
      interceptor: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const started = performance.now();
  const built = await buildTurnWorkflowBundle({
    ...(values.out ? { outFile: values.out } : {}),
    workflowInterceptorModules: values.interceptor ?? [],
  });
  const relative = (file: string) => path.relative(process.cwd(), file) || file;
  console.log(
    `durable-turns-bundle: wrote ${relative(built.codePath)} and ${relative(built.manifestPath)} ` +
      `(@temporalio/workflow ${built.manifest.temporalWorkflowVersion}, ${Math.round(performance.now() - started)} ms)`,
  );
}

main().catch((error: unknown) => {
  console.error(
    `durable-turns-bundle: ${error instanceof Error ? error.message : String(error)}\n\n${usage}`,
  );
  process.exit(1);
});

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

const packageJsonSchema = z.object({ name: z.string().optional(), version: z.string() });

function readPackageJson(file: string) {
  return packageJsonSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
}

/**
 * The `@temporalio/workflow` this worker bundles with (and runs bundles against): resolved from the
 * workflows folder, as the bundler resolves it.
 */
export function installedTemporalWorkflowVersion(): string {
  const workflowsDir = path.dirname(require.resolve('../workflows'));
  return readPackageJson(require.resolve('@temporalio/workflow/package.json', { paths: [workflowsDir] }))
    .version;
}

/**
 * This package's version. Its package.json sits one folder up from worker/ in the repository and
 * two up in the built package (dist/worker/), so it is looked for upwards.
 */
export function durableTurnsVersion(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = readPackageJson(file);
      if (pkg.name === 'durable-turns') return pkg.version;
    }
    if (path.dirname(dir) === dir)
      throw new Error(`no durable-turns package.json above ${__dirname}: is the package installed whole?`);
  }
}

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

const packageJsonSchema = z.object({ version: z.string() });

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

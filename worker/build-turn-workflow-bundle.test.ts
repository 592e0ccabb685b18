import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { markerWorkflowInterceptorsMarker } from '../test/support/marker-workflow-interceptors';
import { buildTurnWorkflowBundle } from './build-turn-workflow-bundle';
import { turnWorkflowBundleManifestSchema } from './turn-workflow-bundle-manifest';

const dir = mkdtempSync(path.join(os.tmpdir(), 'turn-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const installed = (pkg: string) =>
  (JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`), 'utf8')) as { version: string }).version;

describe('building a turn workflow bundle', () => {
  test('writes the code, and beside it a manifest of the @temporalio/workflow, durable-turns and interceptors it was built from', async () => {
    const outFile = path.join(dir, 'out', 'turn-workflows.js');
    const built = await buildTurnWorkflowBundle({ outFile });
    expect(built.codePath).toBe(outFile);
    expect(built.manifestPath).toBe(path.join(dir, 'out', 'turn-workflows.manifest.json'));
    const code = readFileSync(outFile, 'utf8');
    expect(code).toContain('turnWorkflow');
    const manifest = turnWorkflowBundleManifestSchema.parse(
      JSON.parse(readFileSync(built.manifestPath, 'utf8')),
    );
    expect(manifest).toEqual(built.manifest);
    expect(manifest.temporalWorkflowVersion).toBe(installed('@temporalio/workflow'));
    expect(manifest.durableTurnsVersion).toBe(
      (JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string })
        .version,
    );
    expect(manifest.workflowInterceptorModules).toEqual(['durable-turns:tracing/workflow-interceptors']);
    expect(manifest.codeSha256).toBe(createHash('sha256').update(code).digest('hex'));
  });

  test('bundles the extra interceptor modules it is given, and records them', async () => {
    const module = path.join(__dirname, '..', 'test', 'support', 'marker-workflow-interceptors.ts');
    const built = await buildTurnWorkflowBundle({
      outFile: path.join(dir, 'with-interceptor.js'),
      workflowInterceptorModules: [module],
    });
    expect(built.manifest.workflowInterceptorModules).toEqual([
      'durable-turns:tracing/workflow-interceptors',
      module,
    ]);
    expect(readFileSync(built.codePath, 'utf8')).toContain(markerWorkflowInterceptorsMarker);
    expect(readFileSync(path.join(dir, 'out', 'turn-workflows.js'), 'utf8')).not.toContain(
      markerWorkflowInterceptorsMarker,
    );
  });
});

import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suiteWorkflowBundleAt } from '../test/support/suite-workflow-bundle';
import type { BuiltTurnWorkflowBundle } from './build-turn-workflow-bundle';
import { chooseTurnWorkflowBundle } from './choose-turn-workflow-bundle';
import { loadTurnWorkflowBundle } from './load-turn-workflow-bundle';
import {
  type TurnWorkflowBundleManifest,
  turnWorkflowBundleManifestPath,
} from './turn-workflow-bundle-manifest';
import { workflowInterceptorModuleIds } from './workflow-interceptor-modules';

/** The interceptor modules a worker without extra ones installs (the tracing one). */
const own = workflowInterceptorModuleIds();

const dir = mkdtempSync(path.join(os.tmpdir(), 'turn-bundle-load-'));
let built: BuiltTurnWorkflowBundle;
beforeAll(async () => {
  // The suite's bundle written here with its manifest, as the builder writes one (built now when
  // this file runs alone): bundling again costs ~5 s of CPU.
  built = await suiteWorkflowBundleAt(path.join(dir, 'good.js'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let copies = 0;
/** A copy of the good bundle, its manifest changed by `change` (or replaced by `manifestText`). */
function copyOfBundle({
  change = (m) => m,
  manifestText,
  code,
}: {
  change?: (manifest: TurnWorkflowBundleManifest) => unknown;
  manifestText?: string;
  code?: string;
} = {}): string {
  copies += 1;
  const codePath = path.join(dir, `copy-${copies}.js`);
  if (code === undefined) copyFileSync(built.codePath, codePath);
  else writeFileSync(codePath, code);
  writeFileSync(
    turnWorkflowBundleManifestPath({ codePath }),
    manifestText ?? JSON.stringify(change(structuredClone(built.manifest))),
  );
  return codePath;
}

const reasonFor = async (codePath: string, interceptorModuleIds: string[] = own) => {
  const loaded = await loadTurnWorkflowBundle({ codePath, interceptorModuleIds });
  return loaded.ok ? 'usable' : loaded.reason;
};

describe('loading a prebuilt turn workflow bundle', () => {
  test('a bundle built here, for the installed versions and the same interceptors, is used as it is', async () => {
    const loaded = await loadTurnWorkflowBundle({ codePath: copyOfBundle(), interceptorModuleIds: own });
    expect(loaded.ok && loaded.bundle.code).toBe(readFileSync(built.codePath, 'utf8'));
  });

  test('a bundle built with another @temporalio/workflow is stale, and the reason names both versions', async () => {
    const reason = await reasonFor(
      copyOfBundle({ change: (m) => ({ ...m, temporalWorkflowVersion: '1.0.0' }) }),
    );
    expect(reason).toMatch(
      /is stale: it was built with @temporalio\/workflow 1\.0\.0, and 1\.\d+\.\d+ is installed/,
    );
  });

  test('a bundle of another durable-turns version is stale', async () => {
    const reason = await reasonFor(copyOfBundle({ change: (m) => ({ ...m, durableTurnsVersion: '0.0.1' }) }));
    expect(reason).toMatch(/built from durable-turns 0\.0\.1, and this is /);
  });

  test('a bundle whose interceptor modules are not the worker’s is stale, whichever side has more', async () => {
    expect(await reasonFor(copyOfBundle(), [...own, '/somewhere/extra.js'])).toMatch(
      /interceptor modules \[durable-turns:tracing\/workflow-interceptors\] differ from the worker's \[durable-turns:tracing\/workflow-interceptors, \/somewhere\/extra\.js\]/,
    );
    const withOne = copyOfBundle({ change: (m) => ({ ...m, workflowInterceptorModules: [...own, 'x'] }) });
    expect(await reasonFor(withOne, [])).toMatch(
      /interceptor modules \[durable-turns:tracing\/workflow-interceptors, x\] differ from the worker's \(none\)/,
    );
  });

  test('code changed after its manifest was written is not taken for the bundle the manifest describes', async () => {
    const reason = await reasonFor(
      copyOfBundle({ code: `${readFileSync(built.codePath, 'utf8')}\n// edited` }),
    );
    expect(reason).toMatch(/its code is not the code its manifest describes/);
  });

  test('no bundle, a missing manifest, or one that is not a manifest, each say so', async () => {
    expect(await reasonFor(path.join(dir, 'absent.js'))).toBe(
      `there is no prebuilt bundle at ${path.join(dir, 'absent.js')}`,
    );
    const orphan = path.join(dir, 'orphan.js');
    copyFileSync(built.codePath, orphan);
    expect(await reasonFor(orphan)).toMatch(/cannot read its manifest .*orphan\.manifest\.json/);
    expect(await reasonFor(copyOfBundle({ manifestText: '{"format":' }))).toMatch(/is not JSON/);
    expect(await reasonFor(copyOfBundle({ change: ({ codeSha256: _, ...m }) => m }))).toMatch(
      /is not a turn workflow bundle manifest[\s\S]*codeSha256/,
    );
  });
});

describe('choosing the bundle a worker runs', () => {
  test('a stale bundle the operator named is an error that says how to rebuild it', async () => {
    const stale = copyOfBundle({ change: (m) => ({ ...m, temporalWorkflowVersion: '1.0.0' }) });
    const log: string[] = [];
    await expect(
      chooseTurnWorkflowBundle({ explicitPath: stale, interceptorModuleIds: own, log: (m) => log.push(m) }),
    ).rejects.toThrow(
      new RegExp(
        `cannot use the workflow bundle ${stale}: .*1\\.0\\.0.*npx durable-turns-bundle --out ${stale}`,
      ),
    );
    await expect(
      chooseTurnWorkflowBundle({
        explicitPath: path.join(dir, 'absent.js'),
        interceptorModuleIds: own,
        log: (m) => log.push(m),
      }),
    ).rejects.toThrow(/there is no prebuilt bundle at/);
    expect(log).toEqual([]);
  });

  test('a stale bundle at the default place is bundled around, with one log line saying why', async () => {
    const stale = copyOfBundle({ change: (m) => ({ ...m, temporalWorkflowVersion: '1.0.0' }) });
    const log: string[] = [];
    const choose = () =>
      chooseTurnWorkflowBundle({
        explicitPath: undefined,
        defaultPath: stale,
        interceptorModuleIds: own,
        log: (m) => log.push(m),
      });
    const first = await choose();
    const second = await choose();
    expect(first.source).toEqual({ kind: 'bundled-at-start', reason: expect.stringMatching(/1\.0\.0/) });
    expect(second.bundle.code).toContain('turnWorkflow');
    expect(log).toHaveLength(1);
    expect(log[0]).toMatch(
      /bundling the turn workflow at start .* because the bundle at .* is stale: .*1\.0\.0/,
    );
  });

  test('a usable bundle at the default place is used without a word', async () => {
    const log: string[] = [];
    const good = copyOfBundle();
    const chosen = await chooseTurnWorkflowBundle({
      explicitPath: undefined,
      defaultPath: good,
      interceptorModuleIds: own,
      log: (m) => log.push(m),
    });
    expect(chosen.source).toEqual({ kind: 'prebuilt', path: good });
    expect(log).toEqual([]);
  });
});

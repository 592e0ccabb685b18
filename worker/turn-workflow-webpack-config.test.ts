import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { inlineSourceMap } from '../test/support/inline-source-map';
import { turnWorkflowWebpackConfig } from './turn-workflow-webpack-config';

const workflowsPath = path.join(__dirname, 'fixtures', 'zod-commonjs-workflows.js');
const quiet = {
  log: () => {},
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
};

/** The fixture bundled, with our config or Temporal's own, and the source map inlined in it. */
async function bundled({ ours }: { ours: boolean }) {
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    ...(ours ? { webpackConfigHook: (config) => turnWorkflowWebpackConfig({ config }) } : {}),
    logger: quiet,
  });
  const { map } = inlineSourceMap({ code });
  const zodFiles = map.sources
    .filter((s) => s.includes('/node_modules/zod/'))
    .map((s) => s.slice(s.indexOf('/node_modules/zod/') + '/node_modules/zod/'.length));
  return { code, map, zodFiles };
}

let ours: Awaited<ReturnType<typeof bundled>>;
let temporals: Awaited<ReturnType<typeof bundled>>;
beforeAll(async () => {
  ours = await bundled({ ours: true });
  temporals = await bundled({ ours: false });
});

describe('the turn workflow webpack config', () => {
  test('bundles zod’s ES module build for CommonJS code that requires it, without the locales nobody uses', () => {
    expect(ours.zodFiles).toContain('index.js');
    expect(ours.zodFiles.filter((f) => f.endsWith('.cjs'))).toEqual([]);
    // The one locale zod itself configures (English) stays.
    expect(ours.zodFiles.filter((f) => f.includes('/locales/'))).toEqual(['v4/locales/en.js']);
    // What Temporal's config does with the same code: the CommonJS build, every locale.
    expect(temporals.zodFiles).toContain('index.cjs');
    expect(temporals.zodFiles.filter((f) => f.includes('/locales/')).length).toBeGreaterThan(30);
  });

  test('keeps the source map’s mappings and the original files’ names, but not their text', () => {
    expect(ours.map.mappings.length).toBeGreaterThan(0);
    expect(ours.map.sources).toContain(workflowsPath);
    expect((ours.map.sourcesContent ?? []).filter((s) => s)).toEqual([]);
    // Temporal's config carries every file's text: most of what our config leaves out.
    const text = (temporals.map.sourcesContent ?? []).reduce((sum, s) => sum + (s?.length ?? 0), 0);
    expect(ours.code.length).toBeLessThan(temporals.code.length - text);
  });
});

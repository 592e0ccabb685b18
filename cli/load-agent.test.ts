import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.join(__dirname, '..');
const dir = mkdtempSync(path.join(tmpdir(), 'agent-modules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What loading the module `source` (written to `name`) gives, in a process of its own. */
function load(name: string, source: string): unknown {
  const file = path.join(dir, name);
  writeFileSync(file, source);
  const child = path.join(root, 'test', 'support', 'load-agent-child.ts');
  const out = execFileSync(process.execPath, ['--import', 'tsx', child, file], {
    cwd: root,
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').pop() ?? '{}');
}

const agentBody = `
const { defineTool, scriptedModel } = require(${JSON.stringify(path.join(root, 'index.ts'))});
const { z } = require(${JSON.stringify(require.resolve('zod'))});
const echo = defineTool({ name: 'echo', description: 'echo', input: z.object({}), execute: async () => 'ok' });
`;

describe('an agent module', () => {
  test('that assigns module.exports = { tools, models } as one object is loaded (Node sees only a default export)', () => {
    expect(
      load(
        'assigned.cjs',
        `${agentBody}const agent = { tools: [echo], models: [scriptedModel([{ text: 'hi' }])] };\nmodule.exports = agent;\n`,
      ),
    ).toEqual({ models: ['scripted'], tools: ['echo'] });
  });

  test('with named CommonJS exports is loaded', () => {
    expect(
      load(
        'named.cjs',
        `${agentBody}exports.tools = [echo];\nexports.models = { fast: scriptedModel([{ text: 'hi' }]) };\n`,
      ),
    ).toEqual({ models: ['fast'], tools: ['echo'] });
  });

  test('without tools and models is refused, saying what it must export', () => {
    expect(load('empty.cjs', 'module.exports = { nothing: true };\n')).toEqual({
      error: expect.stringMatching(/must export `tools` \(a list\) and `models`/),
    });
  });
});

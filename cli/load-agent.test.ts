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

  test('that names MCP servers gets their tools after its own, listed at load; a server that cannot start fails the load, naming it', () => {
    const everything = path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
    const server = (name: string, main: string) =>
      `{ name: '${name}', only: ['echo', 'get-sum'], transport: { type: 'stdio', command: process.execPath, args: [${JSON.stringify(main)}, 'stdio'] } }`;
    const loaded = load(
      'mcp.cjs',
      `${agentBody}exports.tools = [echo];
exports.models = [scriptedModel([{ text: 'hi' }])];
exports.mcpServers = [${server('everything', everything)}];
`,
    );
    expect(loaded).toEqual({
      models: ['scripted'],
      tools: ['echo', 'everything_echo', 'everything_get-sum'],
    });

    const missing = path.join(dir, 'no-such-server.js');
    expect(
      load(
        'mcp-missing.cjs',
        `${agentBody}exports.tools = [echo];
exports.models = [scriptedModel([{ text: 'hi' }])];
exports.mcpServers = [${server('gone', missing)}];
`,
      ),
    ).toEqual({
      error: expect.stringMatching(
        /MCP servers: could not list the tools of MCP server gone: [\s\S]*no-such-server/,
      ),
    });
  });

  test('without tools and models is refused, saying what it must export', () => {
    expect(load('empty.cjs', 'module.exports = { nothing: true };\n')).toEqual({
      error: expect.stringMatching(/must export `tools` \(a list\) and `models`/),
    });
  });
});

import { mcpToolName } from './mcp-tool-name';

test('an MCP tool is named by its prefix and its own name, with characters providers refuse made `_`', () => {
  expect(mcpToolName({ prefix: 'files_', tool: 'read_text_file' })).toBe('files_read_text_file');
  expect(mcpToolName({ prefix: 'gh_', tool: 'repos.get/issue' })).toBe('gh_repos_get_issue');
});

test('a name over 64 characters is cut with a hash of the whole, so long names sharing a start stay apart', () => {
  const long = 'x'.repeat(70);
  const a = mcpToolName({ prefix: 'server_', tool: `${long}_alpha` });
  const b = mcpToolName({ prefix: 'server_', tool: `${long}_beta` });
  expect(a).toHaveLength(64);
  expect(b).toHaveLength(64);
  expect(a).not.toBe(b);
  expect(a).toMatch(/^server_x+_[0-9a-f]{8}$/);
  expect(mcpToolName({ prefix: 'server_', tool: `${long}_alpha` })).toBe(a);
});

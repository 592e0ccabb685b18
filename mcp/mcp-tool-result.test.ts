import { ToolResultWithFiles } from '../core/tools/tool-files';
import { mcpToolResult } from './mcp-tool-result';

const notice = 'MCP server s: this conversation’s session with the server is new';
const read = (result: Parameters<typeof mcpToolResult>[0]['result'], withNotice = true) =>
  mcpToolResult({ result, server: 's', tool: 't', ...(withNotice ? { notice } : {}) });

describe('a notice before an MCP result', () => {
  test('text: the notice is its first line', () => {
    expect(
      read({
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
      }),
    ).toBe(`${notice}\none\ntwo`);
  });

  test('structured content: the notice is the one text block beside the value (its serialization is left out, as without one)', () => {
    const result = { content: [{ type: 'text' as const, text: '{"a":1}' }], structuredContent: { a: 1 } };
    expect(read(result, false)).toEqual({ a: 1 });
    expect(read(result)).toEqual({ content: [{ type: 'text', text: notice }], structuredContent: { a: 1 } });
  });

  test('blocks with a file: the notice is the first block, and the file keeps its number', () => {
    const out = read({
      content: [
        { type: 'text', text: 'see' },
        { type: 'image', data: 'aGk=', mimeType: 'image/png' },
      ],
    });
    expect(ToolResultWithFiles.isInstance(out)).toBe(true);
    expect((out as ToolResultWithFiles).content).toEqual({
      content: [
        { type: 'text', text: notice },
        { type: 'text', text: 'see' },
        { type: 'image', file: 1, mimeType: 'image/png' },
      ],
    });
  });

  test('an error result: its error message begins with the notice', () => {
    expect(() => read({ content: [{ type: 'text', text: 'no' }], isError: true })).toThrow(
      `${notice}\nMCP tool t of server s reported an error: no`,
    );
  });
});

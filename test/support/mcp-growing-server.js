// A small MCP server over stdio, for the one behaviour the reference servers cannot show on demand:
// a tool list that changes. `grow` registers a tool `late`, and the SDK's server then announces the
// change (notifications/tools/list_changed), as a server that adds tools at run time does.
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');

const server = new McpServer(
  { name: 'growing', version: '1.0.0' },
  { capabilities: { tools: { listChanged: true } } },
);
server.registerTool(
  'grow',
  { description: 'Adds the tool late', annotations: { readOnlyHint: true } },
  async () => {
    server.registerTool(
      'late',
      { description: 'Came later', annotations: { readOnlyHint: true } },
      async () => ({
        content: [{ type: 'text', text: 'late here' }],
      }),
    );
    return { content: [{ type: 'text', text: 'grown' }] };
  },
);
server.connect(new StdioServerTransport());

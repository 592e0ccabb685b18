/** MCP servers' tools as durable-turns tools. */
export type { McpServerConfig, McpToolOverrides } from './mcp-server-config';
export { idempotencyKeyMeta } from './mcp-tool-of';
export type { McpToolAnnotations, McpToolPolicy } from './mcp-tool-policy';
export { McpToolbox } from './mcp-toolbox';
export { mcpTools } from './mcp-tools';

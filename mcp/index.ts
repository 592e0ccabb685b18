/** MCP servers' tools as durable-turns tools. */

export type { McpServerConfig, McpToolOverrides } from './mcp-server-config';
export type { McpToolAnnotations, McpToolPolicy } from './mcp-tool-policy';
export { idempotencyKeyMeta, type McpToolbox, mcpTools } from './mcp-tools';

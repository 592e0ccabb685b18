import { formatIssues } from '../core/schema/format-issues';
import { McpConnection } from './mcp-connection';
import { type McpServerConfig, mcpServerConfigSchema, type ParsedMcpServerConfig } from './mcp-server-config';
import { McpSessions } from './mcp-sessions';
import { McpToolbox } from './mcp-toolbox';

/**
 * Connects to each server and lists its tools (a server that cannot be reached, or two tools with
 * one name, fail here, naming them). Give the toolbox to a worker or an in-process executor as
 * `mcp`, so each turn pins the tools listed when it begins; or give its `tools` as a fixed list.
 */
export async function mcpTools({ servers }: { servers: readonly McpServerConfig[] }): Promise<McpToolbox> {
  const configs = servers.map(parseConfig);
  const names = new Set<string>();
  for (const config of configs) {
    if (names.has(config.name)) throw new Error(`two MCP servers are named ${JSON.stringify(config.name)}`);
    names.add(config.name);
  }
  const connections = configs.map((config) => new McpConnection(config));
  const sessions = configs
    .filter((config) => config.session === 'conversation')
    .map((config) => new McpSessions(config));
  try {
    return await McpToolbox.open(connections, sessions);
  } catch (error) {
    await Promise.all(connections.map((connection) => connection.close()));
    throw error;
  }
}

function parseConfig(config: McpServerConfig, index: number): ParsedMcpServerConfig {
  const parsed = mcpServerConfigSchema.safeParse(config);
  if (!parsed.success)
    throw new Error(
      `MCP server ${index + 1} is not valid: ${formatIssues(parsed.error, { root: 'server' })}`,
    );
  return parsed.data;
}

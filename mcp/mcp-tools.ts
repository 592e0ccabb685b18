import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { formatIssues } from '../core/schema/format-issues';
import { type AnyTool, defineTool } from '../core/tools/define-tool';
import { NonRetryableToolError } from '../core/tools/run-tool-attempt';
import { mcpCallFailure } from './mcp-call-failure';
import { McpConnection } from './mcp-connection';
import { type McpServerConfig, mcpServerConfigSchema, type ParsedMcpServerConfig } from './mcp-server-config';
import { mcpToolName } from './mcp-tool-name';
import { mcpToolPolicy } from './mcp-tool-policy';
import { mcpToolResult } from './mcp-tool-result';

/** The `_meta` key that carries a call's idempotency key to the server. */
export const idempotencyKeyMeta = 'durable-turns/idempotency-key';

/** MCP servers' tools as ordinary tools, and the connections they use. */
export interface McpToolbox {
  tools: AnyTool[];
  /** Per server, our names of its tools by their MCP names. */
  servers: { name: string; tools: Record<string, string> }[];
  /** Closes every connection (stdio servers exit). */
  close(): Promise<void>;
}

/**
 * Connects to each server, lists its tools and makes each an ordinary tool: validated arguments,
 * its own attempt (on Temporal an activity) with retry policy, timeout, idempotency key (sent in the
 * call's `_meta`), hooks, observers, health, tracing and approval. Give the tools to the worker or
 * executor with your own; a name two tools share is an error there, when it starts.
 */
export async function mcpTools({ servers }: { servers: readonly McpServerConfig[] }): Promise<McpToolbox> {
  const connections: McpConnection[] = [];
  try {
    const configs = servers.map(parseConfig);
    const seen = new Map<string, string>();
    for (const config of configs) {
      if (seen.has(config.name)) throw new Error(`two MCP servers are named ${JSON.stringify(config.name)}`);
      seen.set(config.name, config.name);
    }
    connections.push(...configs.map((config) => new McpConnection(config)));
    const listed = await Promise.all(connections.map(listServer));
    const tools: AnyTool[] = [];
    const owners = new Map<string, string>();
    const named: McpToolbox['servers'] = [];
    for (const { connection, serverTools } of listed) {
      const byMcpName: Record<string, string> = {};
      for (const tool of serverTools) {
        const made = toolOf(connection, tool);
        const owner = owners.get(made.name);
        if (owner !== undefined)
          throw new Error(
            `MCP tools ${owner} and ${connection.name}/${tool.name} are both named ${made.name}: set a prefix on one server`,
          );
        owners.set(made.name, `${connection.name}/${tool.name}`);
        byMcpName[tool.name] = made.name;
        tools.push(made);
      }
      named.push({ name: connection.name, tools: byMcpName });
    }
    return {
      tools,
      servers: named,
      close: () => closeAll(connections),
    };
  } catch (error) {
    await closeAll(connections);
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

async function listServer(
  connection: McpConnection,
): Promise<{ connection: McpConnection; serverTools: Tool[] }> {
  let all: Tool[];
  try {
    all = await connection.listTools();
  } catch (error) {
    const stderr = connection.stderrTail();
    throw new Error(
      `could not list the tools of MCP server ${connection.name}: ${error instanceof Error ? error.message : String(error)}` +
        (stderr === '' ? '' : `\nits stderr ended:\n${stderr}`),
      { cause: error },
    );
  }
  const { only } = connection.config;
  if (only === undefined) return { connection, serverTools: all };
  const missing = only.filter((name) => !all.some((tool) => tool.name === name));
  if (missing.length > 0)
    throw new Error(
      `MCP server ${connection.name} has no tool ${missing.map((name) => JSON.stringify(name)).join(', ')} (it lists ${all.map((tool) => tool.name).join(', ')})`,
    );
  return { connection, serverTools: all.filter((tool) => only.includes(tool.name)) };
}

function toolOf(connection: McpConnection, tool: Tool): AnyTool {
  const { config } = connection;
  const overrides = config.tools?.[tool.name];
  const policy = mcpToolPolicy({
    annotations: tool.annotations,
    trusted: config.trusted,
    defaults: config.defaults,
    overrides,
  });
  const timeoutMs = overrides?.timeoutMs ?? config.defaults?.timeoutMs;
  // A call crosses a network (or a pipe) to a server that may restart: one that may run again is
  // tried up to three times unless configured; any other once.
  const retry =
    overrides?.retry ?? config.defaults?.retry ?? (policy.retrySafe ? { maxAttempts: 3 } : undefined);
  const background = overrides?.background ?? config.defaults?.background;
  const server = config.name;
  const inputJsonSchema = tool.inputSchema as Record<string, unknown>;
  return defineTool({
    name: mcpToolName({ prefix: config.prefix ?? `${server}_`, tool: tool.name }),
    description: tool.description ?? tool.title ?? `${tool.name} (MCP server ${server})`,
    input: argumentsSchema(inputJsonSchema),
    inputJsonSchema,
    ...policy,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(retry !== undefined ? { retry } : {}),
    ...(background !== undefined ? { background } : {}),
    async execute(args, ctx) {
      try {
        const result = await connection.callTool({
          tool: tool.name,
          args: args as Record<string, unknown>,
          meta: { [idempotencyKeyMeta]: ctx.idempotencyKey },
          signal: ctx.signal,
          // A server that reports progress keeps the attempt's heartbeat going on its own.
          onProgress: () => ctx.heartbeat(),
        });
        return mcpToolResult({ result, server, tool: tool.name });
      } catch (error) {
        // A stop we asked for (cancel, timeout) is the attempt's to report, not the server's.
        if (ctx.signal.aborted) throw error;
        if (NonRetryableToolError.isInstance(error)) throw error;
        throw mcpCallFailure({
          error,
          server,
          tool: tool.name,
          retrySafe: policy.retrySafe,
          stderr: connection.stderrTail(),
        });
      }
    },
  });
}

/**
 * The arguments' check, from the server's JSON Schema. A schema zod cannot read is left to the
 * server to check (it must check them anyway); the arguments must still be an object.
 */
function argumentsSchema(schema: Record<string, unknown>): z.ZodType {
  try {
    return z.fromJSONSchema(schema);
  } catch {
    return z.record(z.string(), z.unknown());
  }
}

async function closeAll(connections: readonly McpConnection[]): Promise<void> {
  await Promise.all(connections.map((connection) => connection.close()));
}

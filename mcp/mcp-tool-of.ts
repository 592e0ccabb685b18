import { z } from 'zod';
import type { ListedTool } from '../core/schema/listed-toolset';
import { type AnyTool, defineTool } from '../core/tools/define-tool';
import { NonRetryableToolError } from '../core/tools/run-tool-attempt';
import { mcpCallFailure } from './mcp-call-failure';
import type { McpConnection } from './mcp-connection';
import { type McpSessions, renewedSessionNotice } from './mcp-sessions';
import { mcpToolName } from './mcp-tool-name';
import { mcpToolPolicy } from './mcp-tool-policy';
import { mcpToolResult } from './mcp-tool-result';

/** The `_meta` key that carries a call's idempotency key to the server. */
export const idempotencyKeyMeta = 'durable-turns/idempotency-key';

/**
 * One listed MCP tool as an ordinary tool: validated arguments, its own attempt (on Temporal an
 * activity) with retry policy, timeout, idempotency key (sent in the call's `_meta`), hooks,
 * observers, health, tracing and approval; its call goes through the server's connection, or for a
 * `conversation` server through the session of the call's conversation (of its turn, for a
 * standalone turn). A result from a session made again begins with a notice saying so.
 */
export function mcpToolOf(connection: McpConnection, tool: ListedTool, sessions?: McpSessions): AnyTool {
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
    // On Temporal a conversation's calls then go to the worker that holds its session.
    ...(sessions ? { session: server } : {}),
    async execute(args, ctx) {
      const key = ctx.session?.key ?? ctx.turnId;
      const request = {
        tool: tool.name,
        args: args as Record<string, unknown>,
        meta: { [idempotencyKeyMeta]: ctx.idempotencyKey },
        signal: ctx.signal,
        // A server that reports progress keeps the attempt's heartbeat going on its own.
        onProgress: () => ctx.heartbeat(),
      };
      try {
        const { result, renewed } = sessions
          ? await sessions.callTool(key, request, {
              // Its conversation reached the server before, on this host or another.
              openedBefore: ctx.session?.opened?.includes(server) === true,
              ...(ctx.session?.here !== undefined ? { here: ctx.session.here } : {}),
              ...(ctx.session?.holder !== undefined ? { holder: ctx.session.holder } : {}),
            })
          : { result: await connection.callTool(request), renewed: false };
        const scope = ctx.session && ctx.session.key !== ctx.turnId ? 'conversation' : 'turn';
        const notice = renewed ? renewedSessionNotice({ server, scope }) : undefined;
        return mcpToolResult({ result, server, tool: tool.name, ...(notice ? { notice } : {}) });
      } catch (error) {
        // A stop we asked for (cancel, timeout) is the attempt's to report, not the server's.
        if (ctx.signal.aborted) throw error;
        if (NonRetryableToolError.isInstance(error)) throw error;
        throw mcpCallFailure({
          error,
          server,
          tool: tool.name,
          retrySafe: policy.retrySafe,
          stderr: sessions ? sessions.stderrTail(key) : connection.stderrTail(),
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

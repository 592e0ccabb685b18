import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { NonRetryableToolError } from '../core/tools/run-tool-attempt';

/** Thrown when the server could not be reached, or no longer knew the session: the call was not processed. */
export class McpConnectError extends Error {
  override name = 'McpConnectError';
}

/**
 * What a failed MCP call becomes, named by server and tool. A server that was never reached (or no
 * longer knew the session), or that answered with an error, failed the attempt (retried by the
 * tool's policy), except for arguments or a tool it refuses, which no retry mends. Anything else —
 * the connection closed, timed out or broke after the call was sent — leaves its outcome unknown:
 * the attempt may run again only for a retry-safe tool (with the same idempotency key), and
 * otherwise ends the call with an error that says so.
 */
export function mcpCallFailure({
  error,
  server,
  tool,
  retrySafe,
  stderr,
}: {
  error: unknown;
  server: string;
  tool: string;
  retrySafe: boolean;
  stderr: string;
}): Error {
  const message = error instanceof Error ? error.message : String(error);
  const said = stderr === '' ? '' : ` (its stderr ended: ${stderr.split('\n').slice(-3).join(' | ')})`;
  if (error instanceof McpConnectError)
    return new Error(`could not reach MCP server ${server} to call ${tool}: ${message}${said}`);
  if (error instanceof McpError) {
    if (error.code === ErrorCode.InvalidParams || error.code === ErrorCode.MethodNotFound)
      return new NonRetryableToolError(`MCP server ${server} refused tool ${tool}: ${message}`);
    // Any other answer is the server's own: it had the call and said it failed.
    if (error.code !== ErrorCode.ConnectionClosed && error.code !== ErrorCode.RequestTimeout)
      return new Error(`MCP server ${server} failed tool ${tool}: ${message}`);
  }
  const lost = `MCP server ${server} lost tool ${tool}'s call after it was sent (${message})${said}`;
  return retrySafe
    ? new Error(
        `${lost}; the tool is retry-safe, so its retry policy may run it again with the same idempotency key`,
      )
    : new NonRetryableToolError(
        `${lost}: its outcome is unknown; not retried because the tool is not retry-safe`,
      );
}

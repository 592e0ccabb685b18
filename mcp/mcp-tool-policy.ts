import type { McpToolOverrides } from './mcp-server-config';

/** The MCP spec's tool annotations (all hints; see `trusted`). */
export interface McpToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface McpToolPolicy {
  concurrencySafe: boolean;
  retrySafe: boolean;
  requiresApproval: boolean;
}

/**
 * A tool's policy from its annotations (only when its server is trusted: they are the server's
 * claims), then the server's defaults, then its own overrides. The spec's defaults apply to a
 * trusted server's missing hints: not read-only, destructive, not idempotent. An untrusted server's
 * tools are barriers, never re-run after a crash, and wait for approval unless configured.
 */
export function mcpToolPolicy({
  annotations,
  trusted,
  defaults,
  overrides,
}: {
  annotations: McpToolAnnotations | undefined;
  trusted: boolean;
  defaults: McpToolOverrides | undefined;
  overrides: McpToolOverrides | undefined;
}): McpToolPolicy {
  const readOnly = annotations?.readOnlyHint ?? false;
  // The spec: destructiveHint is meaningful only when the tool is not read-only, and defaults to true.
  const destructive = !readOnly && (annotations?.destructiveHint ?? true);
  const fromHints: McpToolPolicy = trusted
    ? {
        concurrencySafe: readOnly,
        retrySafe: readOnly || (annotations?.idempotentHint ?? false),
        requiresApproval: destructive,
      }
    : { concurrencySafe: false, retrySafe: false, requiresApproval: true };
  return {
    concurrencySafe: overrides?.concurrencySafe ?? defaults?.concurrencySafe ?? fromHints.concurrencySafe,
    retrySafe: overrides?.retrySafe ?? defaults?.retrySafe ?? fromHints.retrySafe,
    requiresApproval: overrides?.requiresApproval ?? defaults?.requiresApproval ?? fromHints.requiresApproval,
  };
}

import { stableHash } from '../core/tools/stable-hash';

/** Providers take tool names of at most 64 characters from `[a-zA-Z0-9_-]`. */
const maxLength = 64;

/**
 * Our name for an MCP tool: the prefix and the tool's own name, characters providers refuse
 * replaced by `_`, and a name over 64 characters cut with a short hash of the whole, so two long
 * names that share a start stay apart.
 */
export function mcpToolName({ prefix, tool }: { prefix: string; tool: string }): string {
  const full = `${prefix}${tool}`.replace(/[^a-zA-Z0-9_-]/g, '_');
  if (full.length <= maxLength && full.length > 0) return full;
  const hash = stableHash(`${prefix}${tool}`).slice(0, 8);
  return `${full.slice(0, maxLength - hash.length - 1)}_${hash}`;
}

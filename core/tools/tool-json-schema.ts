import { z } from 'zod';
import type { AnyTool } from './define-tool';

/**
 * The JSON Schema of a tool's arguments: the one it declares (an MCP server's), else its zod
 * schema converted. Converted once per tool: model requests and approvals ask for it often.
 */
export function toolJsonSchema(tool: AnyTool): Record<string, unknown> {
  let schema = byTool.get(tool);
  if (!schema) {
    schema = tool.inputJsonSchema ?? (z.toJSONSchema(tool.input) as Record<string, unknown>);
    byTool.set(tool, schema);
  }
  return schema;
}

const byTool = new WeakMap<AnyTool, Record<string, unknown>>();

import { z } from 'zod';
import type { ToolRegistry, ToolSpec } from '../core';

/** What the model is told about each registered tool: name, description, JSON Schema of the arguments. */
export function toolSpecs(registry: ToolRegistry): ToolSpec[] {
  return registry.list().map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.input) as Record<string, unknown>,
  }));
}

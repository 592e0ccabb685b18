import { z } from 'zod';
import type { ToolRegistry, ToolSpec } from '../core';

/** What the model is told about each registered tool: name, description, JSON Schema of the arguments. */
export function toolSpecs(registry: ToolRegistry): ToolSpec[] {
  let specs = cache.get(registry);
  if (!specs) {
    specs = registry.list().map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: z.toJSONSchema(tool.input) as Record<string, unknown>,
    }));
    cache.set(registry, specs);
  }
  return specs;
}

// A registry's tools never change, and converting schemas on every model request adds up.
const cache = new WeakMap<ToolRegistry, ToolSpec[]>();

import { type AnyTool, type ToolRegistry, type ToolSpec, toolJsonSchema } from '../core';

/** What the model is told about each registered tool: name, description, JSON Schema of the arguments. */
export function toolSpecs(registry: ToolRegistry): ToolSpec[] {
  let specs = byRegistry.get(registry);
  if (!specs) {
    specs = registry.list().map(toolSpec);
    byRegistry.set(registry, specs);
  }
  return specs;
}

function toolSpec(tool: AnyTool): ToolSpec {
  let spec = byTool.get(tool);
  if (!spec) {
    spec = {
      name: tool.name,
      description: tool.description,
      inputSchema: toolJsonSchema(tool),
    };
    byTool.set(tool, spec);
  }
  return spec;
}

// A registry's tools never change, and converting schemas on every model request adds up. Tools
// are usually defined once and shared by many executors (so many registries): cache both.
const byRegistry = new WeakMap<ToolRegistry, ToolSpec[]>();
const byTool = new WeakMap<AnyTool, ToolSpec>();

import type { AnyTool } from './define-tool';

/**
 * Tools by name. A `Map`, because tool names come from the model and must never reach
 * `Object.prototype` keys such as `constructor`.
 */
export class ToolRegistry {
  private readonly byName = new Map<string, AnyTool>();

  constructor(tools: readonly AnyTool[] = []) {
    for (const tool of tools) {
      if (this.byName.has(tool.name))
        throw new Error(`two tools are named ${JSON.stringify(tool.name)}; names must be unique`);
      this.byName.set(tool.name, tool);
    }
  }

  get(name: string): AnyTool | undefined {
    return this.byName.get(name);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  list(): AnyTool[] {
    return [...this.byName.values()];
  }
}

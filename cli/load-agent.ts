import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AnyTool, TurnModel } from '../core';
import { CliError } from './cli-error';

export interface AgentModule {
  /** Where it was loaded from, for messages. */
  source: string;
  tools: AnyTool[];
  models: TurnModel[] | Record<string, TurnModel>;
}

/** The demo agent: a notes workspace and a scripted model (`demo-scripted`), no API key needed. */
export const demoAgentPath = path.join(__dirname, '../examples/demo-agent');

/**
 * An agent module: one that exports `tools` (a list) and `models` (a list, each under its own
 * name, or a record by name). The demo agent when none is named. A `.ts` module needs a
 * TypeScript-aware Node (tsx) or compiling first.
 */
export async function loadAgent({ specifier }: { specifier: string | undefined }): Promise<AgentModule> {
  const target = specifier ? path.resolve(specifier) : demoAgentPath;
  let loaded: LoadedAgent;
  try {
    // CommonJS resolution finds the file (`./agent` → `./agent.js`, or `.ts` under tsx); import()
    // then loads it whether it is CommonJS or ESM.
    const namespace = (await import(pathToFileURL(require.resolve(target)).href)) as LoadedAgent & {
      default?: LoadedAgent;
    };
    // A CommonJS module's exports come as named exports only where Node can see them statically
    // (`exports.tools = …`); `module.exports = agent` comes as the default export alone.
    loaded = hasAgentExports(namespace) || !namespace.default ? namespace : namespace.default;
  } catch (error) {
    throw new CliError(
      `cannot load the agent module ${target}: ${error instanceof Error ? error.message : String(error)}` +
        (/\.[cm]?ts$/.test(target) ? ' (a .ts module needs tsx: `npx tsx` this command, or compile it)' : ''),
      { cause: error },
    );
  }
  const tools = loaded.tools ?? loaded.demoTools;
  const models = loaded.models ?? (loaded.demoModel ? [loaded.demoModel] : undefined);
  if (!Array.isArray(tools) || !models || typeof models !== 'object')
    throw new CliError(
      `the agent module ${target} must export \`tools\` (a list) and \`models\` (a list or a record by name)`,
    );
  return { source: target, tools, models };
}

type LoadedAgent = Partial<AgentModule> & { demoTools?: AnyTool[]; demoModel?: TurnModel };

function hasAgentExports(module: LoadedAgent): boolean {
  return module.tools !== undefined || module.models !== undefined || module.demoTools !== undefined;
}

export function modelNames({ agent }: { agent: AgentModule }): string[] {
  return Array.isArray(agent.models) ? agent.models.map((m) => m.name) : Object.keys(agent.models);
}

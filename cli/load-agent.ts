import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AnyTool, TurnModel } from '../core';
import type { McpServerConfig, McpToolbox } from '../mcp';
import { CliError } from './cli-error';

export interface AgentModule {
  /** Where it was loaded from, for messages. */
  source: string;
  /** Its own tools (its MCP servers' are in `mcp`, pinned per turn). */
  tools: AnyTool[];
  models: TurnModel[] | Record<string, TurnModel>;
  /** The connections to its MCP servers, when it names any (their stdio servers end with this process). */
  mcp?: McpToolbox;
}

/** The demo agent: a notes workspace and a scripted model (`demo-scripted`), no API key needed. */
export const demoAgentPath = path.join(__dirname, '../examples/demo-agent');

/**
 * An agent module: one that exports `tools` (a list) and `models` (a list, each under its own
 * name, or a record by name), and may export `mcpServers` (a list of MCP servers whose tools it
 * uses: they are listed now, and a server that cannot be reached fails the load, naming it). The
 * demo agent when none is named. A `.ts` module needs a
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
  const servers = loaded.mcpServers;
  if (servers === undefined) return { source: target, tools, models };
  if (!Array.isArray(servers))
    throw new CliError(`the agent module ${target} exports \`mcpServers\`, but not as a list`);
  // Loaded only for an agent that names servers: the CLI starts without the MCP SDK otherwise.
  const { mcpTools } = require('../mcp') as typeof import('../mcp');
  const mcp = await mcpTools({ servers }).catch((error: unknown) => {
    throw new CliError(
      `the agent module ${target}'s MCP servers: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  });
  return { source: target, tools, models, mcp };
}

type LoadedAgent = Partial<Omit<AgentModule, 'mcp'>> & {
  demoTools?: AnyTool[];
  demoModel?: TurnModel;
  mcpServers?: McpServerConfig[];
};

function hasAgentExports(module: LoadedAgent): boolean {
  return module.tools !== undefined || module.models !== undefined || module.demoTools !== undefined;
}

/** Its tools' names: its own, then its MCP servers' as they listed them at load. */
export function toolNames({ agent }: { agent: AgentModule }): string[] {
  return [...agent.tools, ...(agent.mcp?.tools ?? [])].map((tool) => tool.name);
}

export function modelNames({ agent }: { agent: AgentModule }): string[] {
  return Array.isArray(agent.models) ? agent.models.map((m) => m.name) : Object.keys(agent.models);
}

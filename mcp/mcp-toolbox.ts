import type { ListedTool, ListedToolset } from '../core/schema/listed-toolset';
import { listedToolset } from '../core/schema/listed-toolset';
import type { AnyTool } from '../core/tools/define-tool';
import { remember, type ToolLister } from '../core/tools/listed-tools';
import type { McpConnection } from './mcp-connection';
import type { McpSessions } from './mcp-sessions';
import { mcpToolOf } from './mcp-tool-of';

const toolsetsHeld = 16;

/**
 * MCP servers' tools as ordinary tools, and the connections they use. Give it to a worker or an
 * in-process executor as `mcp`: each turn then pins the tools the servers list when it begins, and
 * keeps them to its end on every worker (see `TurnToolsets`). Its `tools` are those listed when it
 * was made, for a host that takes a fixed list.
 */
export class McpToolbox implements ToolLister {
  private readonly made = new Map<string, AnyTool[]>();

  private constructor(
    private readonly connections: readonly McpConnection[],
    /** What the servers listed when the toolbox was made. */
    readonly listed: ListedToolset,
    /** The sessions of the `conversation` servers (each is listed through its connection). */
    private readonly sessions: readonly McpSessions[],
  ) {}

  /** Lists every server's tools once, and refuses two tools with one name. */
  static async open(
    connections: readonly McpConnection[],
    sessions: readonly McpSessions[] = [],
  ): Promise<McpToolbox> {
    const toolbox = new McpToolbox(connections, listedToolset([]), sessions);
    const listed = await toolbox.list();
    const opened = new McpToolbox(connections, listed, sessions);
    opened.toolsOf(listed);
    return opened;
  }

  /** The tools as listed when the toolbox was made. */
  get tools(): AnyTool[] {
    return this.toolsOf(this.listed);
  }

  /** Per server, our names of its tools (as listed when the toolbox was made) by their MCP names. */
  get servers(): { name: string; tools: Record<string, string> }[] {
    const tools = this.tools;
    let index = 0;
    return this.listed.servers.map((server) => ({
      name: server.name,
      tools: Object.fromEntries(server.tools.map((tool) => [tool.name, tools[index++]?.name ?? ''])),
    }));
  }

  async list(): Promise<ListedToolset> {
    const servers = await Promise.all(
      this.connections.map(async (connection) => ({
        name: connection.name,
        tools: await listServer(connection),
      })),
    );
    return listedToolset(servers);
  }

  toolsOf(toolset: ListedToolset): AnyTool[] {
    const known = this.made.get(toolset.digest);
    if (known) return known;
    const tools: AnyTool[] = [];
    const owners = new Map<string, string>();
    for (const server of toolset.servers) {
      const connection = this.connections.find((candidate) => candidate.name === server.name);
      if (connection === undefined)
        throw new Error(
          `this host has no MCP server ${server.name}, which the turn's tools were listed from (hosts of one task queue must name the same servers)`,
        );
      for (const tool of server.tools) {
        const pool = this.sessions.find((candidate) => candidate.name === server.name);
        const made = mcpToolOf(connection, tool, pool);
        const owner = owners.get(made.name);
        if (owner !== undefined)
          throw new Error(
            `MCP tools ${owner} and ${server.name}/${tool.name} are both named ${made.name}: set a prefix on one server`,
          );
        owners.set(made.name, `${server.name}/${tool.name}`);
        tools.push(made);
      }
    }
    remember(this.made, toolset.digest, tools, toolsetsHeld);
    return tools;
  }

  /** Whether some servers keep a session per conversation (their calls go to the worker that holds it). */
  get keepsSessions(): boolean {
    return this.sessions.length > 0;
  }

  /** The keys with a session open now, per `conversation` server (for operators and tests). */
  openSessions(): Record<string, string[]> {
    return Object.fromEntries(this.sessions.map((sessions) => [sessions.name, sessions.keys()]));
  }

  /** Closes the sessions a conversation's calls had with its `conversation` servers (its key: `conversationSessionKey`). */
  async closeSessions(key: string): Promise<void> {
    await Promise.all(this.sessions.map((sessions) => sessions.closeKey(key)));
  }

  /** Closes every connection and session (stdio servers exit). */
  async close(): Promise<void> {
    await Promise.all([
      ...this.connections.map((connection) => connection.close()),
      ...this.sessions.map((sessions) => sessions.close()),
    ]);
  }
}

/** A server's tools (those its config keeps), in the form a turn pins. */
async function listServer(connection: McpConnection): Promise<ListedTool[]> {
  let all: ListedTool[];
  try {
    all = (await connection.listTools()).map((tool) => ({
      name: tool.name,
      ...(tool.title !== undefined ? { title: tool.title } : {}),
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      inputSchema: tool.inputSchema as Record<string, unknown>,
      ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
    }));
  } catch (error) {
    const stderr = connection.stderrTail();
    throw new Error(
      `could not list the tools of MCP server ${connection.name}: ${error instanceof Error ? error.message : String(error)}` +
        (stderr === '' ? '' : `\nits stderr ended:\n${stderr}`),
      { cause: error },
    );
  }
  const { only } = connection.config;
  if (only === undefined) return all;
  const missing = only.filter((name) => !all.some((tool) => tool.name === name));
  if (missing.length > 0)
    throw new Error(
      `MCP server ${connection.name} has no tool ${missing.map((name) => JSON.stringify(name)).join(', ')} (it lists ${all.map((tool) => tool.name).join(', ')})`,
    );
  return all.filter((tool) => only.includes(tool.name));
}

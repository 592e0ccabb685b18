import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  type Tool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { durableTurnsVersion } from '../core/package-version';
import { McpConnectError } from './mcp-call-failure';
import type { ParsedMcpServerConfig } from './mcp-server-config';

/** Requests wait this long at most on the SDK's own clock; our attempt timeout and signal decide first. */
const noSdkTimeoutMs = 2_147_483_647;
const stderrLines = 20;
const sessionEndWaitMs = 2_000;

/**
 * One MCP server as this process reaches it: connected on first use, connected again on the next
 * use after the connection closed (a stdio server that died is started again). Calls of all turns on
 * this host share it, as MCP clients are meant to; a `conversation` server's calls go through
 * `McpSessions`, which holds one of these per conversation.
 */
export class McpConnection {
  private connecting: Promise<Client> | undefined;
  private readonly recentStderr: string[] = [];
  private closed = false;
  /** The last list, kept while a server that announces changes (`tools.listChanged`) has announced none. */
  private heldList: { client: Client; tools: Tool[] } | undefined;
  /** Counts announced changes, so a list read while one arrived is not kept. */
  private changes = 0;
  /** Counts connections made: a new one is a new session, which has none of the old one's state. */
  private connections = 0;
  private readonly generations = new WeakMap<Client, number>();

  constructor(readonly config: ParsedMcpServerConfig) {}

  get name(): string {
    return this.config.name;
  }

  /**
   * Every tool the server lists, page by page. A server that announces changes to its list is
   * asked again only after it announced one (or after a reconnect); any other, every time.
   */
  async listTools(): Promise<Tool[]> {
    const client = await this.client();
    if (this.heldList?.client === client) return this.heldList.tools;
    const changesBefore = this.changes;
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client
        .listTools(cursor === undefined ? {} : { cursor }, { timeout: this.config.connectTimeoutMs })
        .catch(async (error: unknown) => {
          throw await this.sessionGone(client, error);
        });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    const announces = client.getServerCapabilities()?.tools?.listChanged === true;
    if (announces && changesBefore === this.changes) this.heldList = { client, tools };
    return tools;
  }

  async callTool({
    tool,
    args,
    meta,
    signal,
    onProgress,
    onConnected,
  }: {
    tool: string;
    args: Record<string, unknown>;
    meta: Record<string, unknown>;
    signal: AbortSignal;
    onProgress: () => void;
    /**
     * Called before the call is sent, with which connection carries it: 1 for the first, one more
     * for each connection made again (after the server exited or forgot the session).
     */
    onConnected?: (generation: number) => void;
  }): Promise<CallToolResult> {
    const client = await this.client().catch((error: unknown) => {
      throw new McpConnectError(error instanceof Error ? error.message : String(error), { cause: error });
    });
    onConnected?.(this.generations.get(client) ?? 0);
    try {
      // The SDK cancels the request on the server (notifications/cancelled) when the signal fires.
      return (await client.callTool({ name: tool, arguments: args, _meta: meta }, undefined, {
        signal,
        timeout: noSdkTimeoutMs,
        onprogress: onProgress,
      })) as CallToolResult;
    } catch (error) {
      throw await this.sessionGone(client, error);
    }
  }

  /**
   * A Streamable HTTP server that no longer knows the session (it restarted, or let the session
   * expire) refuses the request at the HTTP level — 404 by the spec, 400 from some servers (the
   * reference `server-everything`) — and the SDK never closes the connection: the request was not
   * processed, and this connection is dropped so the next use makes a new session.
   */
  private async sessionGone(client: Client, error: unknown): Promise<unknown> {
    if (!(error instanceof StreamableHTTPError) || (error.code !== 404 && error.code !== 400)) return error;
    const dropped = this.connecting;
    if (dropped && (await dropped.catch(() => undefined)) === client) this.connecting = undefined;
    await client.close().catch(() => {});
    return new McpConnectError(
      `the server no longer knows this session (HTTP ${error.code}): ${error.message}`,
      {
        cause: error,
      },
    );
  }

  /** The last lines the server wrote to stderr (stdio servers), for messages about its failures. */
  stderrTail(): string {
    return this.recentStderr.join('\n');
  }

  async close(): Promise<void> {
    this.closed = true;
    const connecting = this.connecting;
    this.connecting = undefined;
    const client = await connecting?.catch(() => undefined);
    // A Streamable HTTP session is ended on the server too (DELETE, as the spec asks), so that the
    // server lets go of what it kept for it; one that does not answer soon is not waited for.
    const transport = client?.transport;
    if (transport instanceof StreamableHTTPClientTransport)
      await settledWithin(transport.terminateSession(), sessionEndWaitMs);
    await client?.close().catch(() => {});
  }

  private client(): Promise<Client> {
    if (this.closed) return Promise.reject(new Error(`the MCP connection to ${this.name} was closed`));
    if (this.connecting === undefined) {
      // A closed connection (the server exited, the HTTP session ended) is connected again on
      // next use; a later connection is not dropped for an old one's close.
      const forget = () => {
        if (this.connecting === attempt) this.connecting = undefined;
      };
      const attempt: Promise<Client> = this.connect(forget).catch((error: unknown) => {
        forget();
        throw error;
      });
      this.connecting = attempt;
    }
    return this.connecting;
  }

  private async connect(onClose: () => void): Promise<Client> {
    const client = new Client({ name: 'durable-turns', version: durableTurnsVersion });
    client.onclose = onClose;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.changes += 1;
      this.heldList = undefined;
    });
    await client.connect(this.transport(), { timeout: this.config.connectTimeoutMs });
    this.connections += 1;
    this.generations.set(client, this.connections);
    return client;
  }

  private transport(): Transport {
    const { transport } = this.config;
    if (transport.type === 'http')
      return new StreamableHTTPClientTransport(new URL(transport.url), {
        requestInit: transport.headers ? { headers: transport.headers } : {},
      });
    const stdio = new StdioClientTransport({
      command: transport.command,
      args: transport.args,
      env: { ...getDefaultEnvironment(), ...transport.env },
      ...(transport.cwd !== undefined ? { cwd: transport.cwd } : {}),
      stderr: 'pipe',
    });
    stdio.stderr?.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() === '') continue;
        this.recentStderr.push(line);
        if (this.recentStderr.length > stderrLines) this.recentStderr.shift();
      }
    });
    return stdio;
  }
}

/** Waits for `work` to settle, however it does, for `ms` at most (on a timer that keeps nothing alive). */
async function settledWithin(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  await Promise.race([work.catch(() => {}), late]);
  clearTimeout(timer);
}

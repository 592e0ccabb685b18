import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { remember } from '../core/tools/listed-tools';
import { McpConnectError } from './mcp-call-failure';
import { McpConnection } from './mcp-connection';
import type { ParsedMcpServerConfig } from './mcp-server-config';

/** How many keys are remembered as having had a session, to tell a session made again from a first one. */
const keysRemembered = 10_000;

type CallRequest = Omit<Parameters<McpConnection['callTool']>[0], 'onConnected'>;

interface Session {
  readonly connection: McpConnection;
  /** Calls running now: a session with any is never closed for idleness or for the cap. */
  calls: number;
  idleTimer: NodeJS.Timeout | undefined;
  /** The connection its last call went through (undefined: no call has reached the server yet). */
  generation: number | undefined;
  /** The server state its key's earlier calls left is gone: the next call that returns says so. */
  renewed: boolean;
  /** The holder its calls' turn took to be current when it was opened or last confirmed here. */
  holder: string | undefined;
}

/** What a call's turn knows of its key's sessions (on Temporal; see `ToolSession`). */
export interface SessionClaim {
  /** Its conversation reached the server before, on this host or another. */
  openedBefore?: boolean;
  /** This host holds the current sessions, as the turn knows. */
  here?: boolean;
  /** Which holder the turn takes to be current (opaque). */
  holder?: string;
}

/**
 * A `conversation` server's sessions on this host: a connection of its own (over stdio, a server
 * process) per key, opened by the key's first call. A session closes after `sessionIdleMs` without a
 * call, when its key is closed (its conversation ended), or when it is the least recently used one
 * without a call running and `maxSessions` are open. The last 10,000 keys that had a session are
 * remembered, so that a call which has to open a new one for such a key — or whose connection had
 * to be made again — is known to run without the state its key's earlier calls left. Its timers
 * never keep the process alive.
 */
export class McpSessions {
  /** Open sessions, least recently used first. */
  private readonly open = new Map<string, Session>();
  private readonly known = new Map<string, true>();
  /** Sessions closing now (a stdio server may take a while to exit): `close` waits for them too. */
  private readonly closing = new Set<Promise<void>>();
  private closed = false;

  constructor(readonly config: ParsedMcpServerConfig) {}

  get name(): string {
    return this.config.name;
  }

  /** Keys with a session open now, least recently used first. */
  keys(): string[] {
    return [...this.open.keys()];
  }

  /**
   * Calls the tool in the key's session. `renewed`: the key had a session before whose server state
   * is gone (it was closed, or the server lost it), and no call has said so yet.
   */
  async callTool(
    key: string,
    request: CallRequest,
    claim: SessionClaim = {},
  ): Promise<{ result: CallToolResult; renewed: boolean }> {
    const session = this.acquire(key, claim);
    try {
      const result = await session.connection.callTool({
        ...request,
        onConnected: (generation) => {
          if (session.generation !== undefined && generation !== session.generation) session.renewed = true;
          session.generation = generation;
          remember(this.known, key, true, keysRemembered);
        },
      });
      // Told once: the call that returns first carries it (one that fails leaves it to the next).
      const { renewed } = session;
      session.renewed = false;
      return { result, renewed };
    } finally {
      this.release(key, session);
    }
  }

  /** The last lines the key's server wrote to stderr (stdio), for messages about its failures. */
  stderrTail(key: string): string {
    return this.open.get(key)?.connection.stderrTail() ?? '';
  }

  /** Closes the key's session, if it has one (a stdio server exits); its next call opens another. */
  async closeKey(key: string): Promise<void> {
    const session = this.open.get(key);
    if (session) await this.end(key, session);
  }

  /** Closes every session; calls after this fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const [key, session] of this.open) void this.end(key, session);
    await Promise.all(this.closing);
  }

  /** The key's session, opened if it has none, made the most recently used, with one more call. */
  private acquire(key: string, { openedBefore = false, here, holder }: SessionClaim): Session {
    // As a server that cannot be reached: the call was not sent.
    if (this.closed) throw new McpConnectError(`the MCP sessions of ${this.name} were closed`);
    let existing = this.open.get(key);
    if (existing && stale(existing, { openedBefore, here, holder })) {
      // The conversation went on elsewhere since: this session's state is not its latest.
      void this.end(key, existing);
      existing = undefined;
    }
    const session = existing ?? {
      connection: new McpConnection(this.config),
      calls: 0,
      idleTimer: undefined,
      generation: undefined,
      // A key that had a session here, or (its workflow says) on another host.
      renewed: this.known.has(key) || openedBefore,
      holder,
    };
    if (here) session.holder = holder;
    this.open.delete(key);
    this.open.set(key, session);
    session.calls += 1;
    clearTimeout(session.idleTimer);
    session.idleTimer = undefined;
    this.closePastCap();
    return session;
  }

  private release(key: string, session: Session): void {
    session.calls -= 1;
    if (session.calls > 0 || this.open.get(key) !== session) return;
    session.idleTimer = setTimeout(() => {
      if (this.open.get(key) === session && session.calls === 0) void this.end(key, session);
    }, this.config.sessionIdleMs);
    session.idleTimer.unref();
  }

  /** Past the cap, the least recently used sessions without a call running close. */
  private closePastCap(): void {
    for (const [key, session] of this.open) {
      if (this.open.size <= this.config.maxSessions) return;
      if (session.calls === 0) void this.end(key, session);
    }
  }

  /** Forgets the session at once (the key's next call opens another), and closes it. */
  private end(key: string, session: Session): Promise<void> {
    clearTimeout(session.idleTimer);
    session.idleTimer = undefined;
    this.open.delete(key);
    const closing = session.connection.close();
    this.closing.add(closing);
    void closing.finally(() => this.closing.delete(closing));
    return closing;
  }
}

/**
 * A session here is stale when its turn says the conversation's current sessions are on another
 * host, unless it was opened here for that same belief (another call of the same wave did).
 */
function stale(session: Session, { openedBefore, here, holder }: SessionClaim): boolean {
  if (!openedBefore || here === undefined || here) return false;
  return session.holder !== holder;
}

/**
 * What the model is told before a result from a session made again: calls of its conversation (or
 * turn) may have left state on the server — a subscription, an open page — that this one lacks.
 */
export function renewedSessionNotice({
  server,
  scope,
}: {
  server: string;
  scope: 'conversation' | 'turn';
}): string {
  return `MCP server ${server}: this ${scope}'s session with the server is new (the one earlier calls used is gone); state those calls left on the server may be lost.`;
}

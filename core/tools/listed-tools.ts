import type { ListedToolset } from '../schema/listed-toolset';
import type { AnyTool } from './define-tool';
import { ToolRegistry } from './tool-registry';

/**
 * Tools that servers list at run time (MCP servers: `mcpTools` from `durable-turns/mcp`): what
 * they list now, and the tools of a list a turn pinned.
 */
export interface ToolLister {
  /** What the servers listed when the lister was made (a host checks its names against its own tools at start). */
  readonly listed: ListedToolset;
  /** The servers' tools as listed now. */
  list(): Promise<ListedToolset>;
  /** The tools of a list, ready to run (it throws for a server this host does not reach). */
  toolsOf(toolset: ListedToolset): AnyTool[];
  /** Closes the sessions the servers keep for this key (a conversation ended: `conversationSessionKey`). */
  closeSessions?(key: string): Promise<void>;
  /** Whether some of its tools keep sessions (`ToolDefinition.session`): their worker needs a queue of its own. */
  readonly keepsSessions?: boolean;
}

/**
 * Pins a turn's listed tools where the turn lives (its workflow on Temporal: the first offer wins)
 * and answers with the pinned list's digest, and the list itself when it is not the one offered.
 */
export type PinToolset = (offered: ListedToolset) => Promise<{ digest: string; toolset?: ListedToolset }>;

const turnsHeld = 1_000;
const registriesHeld = 16;

/**
 * Each turn's tools on this host: the host's own, then those its servers listed when the turn
 * pinned them. The first request (or attempt) of a turn here lists the servers and offers the list
 * to the turn; every later one of the same turn uses what it pinned, so a server whose list changes
 * mid-turn changes the next turn, not this one. Registries are made once per list.
 */
export class TurnToolsets {
  /** Each turn's pinned list, by digest: many turns share a few lists. */
  private readonly pinned = new Map<string, string>();
  private readonly lists = new Map<string, ToolRegistry>();
  private readonly asking = new Map<string, Promise<ToolRegistry>>();

  constructor(
    private readonly own: readonly AnyTool[],
    private readonly lister: ToolLister,
  ) {}

  /** Closes the sessions the servers keep for this key (see `ToolLister.closeSessions`). */
  async closeSessions(key: string): Promise<void> {
    await this.lister.closeSessions?.(key);
  }

  async registryFor(turnId: string, pin: PinToolset): Promise<ToolRegistry> {
    const digest = this.pinned.get(turnId);
    const held = digest === undefined ? undefined : this.lists.get(digest);
    if (digest !== undefined && held !== undefined) {
      // Least recently used out first: refresh both places.
      remember(this.pinned, turnId, digest, turnsHeld);
      remember(this.lists, digest, held, registriesHeld);
      return held;
    }
    // Calls of one wave ask at once: they share one offer, so the list enters history once per host.
    const asking = this.asking.get(turnId);
    if (asking) return asking;
    const offer = this.offer(turnId, pin).finally(() => this.asking.delete(turnId));
    this.asking.set(turnId, offer);
    return offer;
  }

  /**
   * Not seen here, or its list was let go: offers what the servers list now; the turn answers with
   * what it pinned (the same, unless another host or an earlier look pinned another).
   */
  private async offer(turnId: string, pin: PinToolset): Promise<ToolRegistry> {
    const offered = await this.lister.list();
    const answer = await pin(offered);
    const toolset = answer.toolset ?? offered;
    if (toolset.digest !== answer.digest)
      throw new Error(
        `turn ${turnId} pinned tools ${answer.digest}, but the answer carried ${toolset.digest}`,
      );
    const registry =
      this.lists.get(toolset.digest) ?? new ToolRegistry([...this.own, ...this.lister.toolsOf(toolset)]);
    remember(this.pinned, turnId, toolset.digest, turnsHeld);
    remember(this.lists, toolset.digest, registry, registriesHeld);
    return registry;
  }
}

/** Sets `key` as the most recent entry of `map`, and lets the least recent go past `max`. */
export function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > max) {
    const oldest = map.keys().next().value;
    if (oldest === undefined) break;
    map.delete(oldest);
  }
}

/**
 * A host's `TurnToolsets`, once its own tools and what its servers listed at start are known not to
 * share a name (a host that starts with a clash fails now, not at a turn's first request).
 */
export function turnToolsets({ own, lister }: { own: readonly AnyTool[]; lister: ToolLister }): TurnToolsets {
  new ToolRegistry([...own, ...lister.toolsOf(lister.listed)]);
  return new TurnToolsets(own, lister);
}

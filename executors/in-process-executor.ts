import { type BlobStore, blobStoreOption, hostFiles, keepInputFiles } from '../blobs';
import {
  type ApprovalGrantInput,
  approvalGrantSchema,
  assertTurnId,
  type GrantRevocation,
  grantRevocationSchema,
  type HostTimers,
  isTranscriptEvent,
  normalizeInput,
  type ProgressEntry,
  parsedOrThrow,
  ToolHealthRegistry,
  ToolRegistry,
  type TurnConfig,
  TurnEngine,
  type TurnResult,
  type TurnStateView,
  type TurnToolsets,
  type TurnWatchEvent,
  turnConfigOf,
  turnConfigSchema,
  turnInputSchema,
  turnStateView,
  turnToolsets,
  type UserMessage,
} from '../core';
import { DurableTurnsError } from '../core/errors/durable-turns-error';
import { formatIssues } from '../core/schema/format-issues';
import { turnTracingFromEnv } from '../tracing/turn-tracing-from-env';
import { driveTurn } from './drive-turn';
import { type ForkTurnArgs, forkedRun } from './forked-run';
import type {
  InProcessExecutorOptions,
  InProcessWatchOptions,
  RunTurnArgs,
} from './in-process-executor-options';
import { inProcessSubAgents, subAgentsHolding } from './in-process-sub-agents';
import { MemoryJournal } from './journal/memory-journal';
import type { TurnJournal } from './journal/turn-journal';
import { JournalWriter } from './journal-writer';
import { TurnFeed } from './turn-feed';
import type { TurnHost } from './turn-host';
import { TurnInbox } from './turn-inbox';
import { withOwnChoices } from './turn-own-config';
import { watchTurnFeed } from './watch-turn-feed';

export type { InProcessExecutorOptions, InProcessWatchOptions, RunTurnArgs };

const systemTimers: HostTimers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/**
 * Runs turns in this process with plain promises. A batch runs concurrently by default — when a
 * model asks for three reads at once it means all three — in waves planned by the engine; results
 * are recorded in batch order, so the events are the same either way. `sequential()` gives that
 * up for policy inside a batch: budget and cancellation are checked between calls.
 */
export class InProcessExecutor {
  private readonly host: TurnHost;
  private readonly blobStore: BlobStore | undefined;
  private readonly journal: TurnJournal;
  private readonly owner: string;
  /** Turns this executor is driving now: opening one again would fence out its own live session. */
  private readonly active = new Set<string>();
  /** Where steers reach the turns this executor is driving now, and what watchers read of them. */
  private readonly inboxes = new Map<string, TurnInbox>();
  private readonly feeds = new Map<string, TurnFeed>();
  private readonly engines = new Map<string, TurnEngine>(); // running here: a sub-agent's budget reads its parent's
  private config?: TurnConfig;
  private readonly toolsets?: TurnToolsets;

  constructor(private readonly options: InProcessExecutorOptions) {
    const timers = options.timers ?? systemTimers;
    this.blobStore = blobStoreOption(options.blobStore);
    this.host = {
      registry: new ToolRegistry(options.tools),
      model: options.model,
      hooks: options.hooks ?? [],
      observers: [
        ...(options.observers ?? []),
        {
          onEntry: ({ turnId, entry }) => this.feeds.get(turnId)?.recorded({ entry }),
          onModelDelta: (event) => this.feeds.get(event.turnId)?.streamed(event),
        },
      ],
      health: options.health ?? new ToolHealthRegistry({ now: timers.now }),
      ...(options.approver ? { approver: options.approver } : {}),
      agents: inProcessSubAgents(this),
      timers,
      leaseMs: options.leaseMs ?? 30_000,
      files: hostFiles({
        ...(this.blobStore ? { store: this.blobStore } : {}),
        ...(options.fileLimits ? { limits: options.fileLimits } : {}),
      }),
    };
    const tracing = options.tracing === undefined ? turnTracingFromEnv() : options.tracing || undefined;
    if (tracing) this.host.tracing = tracing;
    if (options.mcp) this.toolsets = turnToolsets({ own: options.tools, lister: options.mcp });
    this.journal = options.journal ?? new MemoryJournal(timers.now);
    this.owner = options.owner ?? `in-process-${Math.random().toString(36).slice(2, 10)}`;
  }

  /** The host of one turn: with the tools its servers list now, when there are servers (in this process the first look pins them). */
  private async hostFor(turnId: string): Promise<TurnHost> {
    if (!this.toolsets) return this.host;
    const registry = await this.toolsets.registryFor(turnId, async (offered) => ({ digest: offered.digest }));
    return { ...this.host, registry };
  }

  /** An executor that runs a batch one call at a time. */
  static sequential(options: InProcessExecutorOptions): InProcessExecutor {
    return new InProcessExecutor({ ...options, dispatch: { ...options.dispatch, mode: 'sequential' } });
  }

  get health(): ToolHealthRegistry {
    return this.host.health;
  }

  /** Runs a new turn to its end. Cancelling `signal` ends it `cancelled` with interrupted outputs. */
  async runTurn(
    { turnId, input, earlier, session: toolSession, grants, output, fork, budget, parent }: RunTurnArgs,
    { signal }: { signal?: AbortSignal } = {},
  ): Promise<TurnResult> {
    assertTurnId(turnId);
    const parsedInput = turnInputSchema.safeParse(input);
    if (!parsedInput.success) throw new Error(`invalid turn input: ${formatIssues(parsedInput.error)}`);
    const config = withOwnChoices(this.turnConfig(), { grants, output, budget });
    // Claimed at once, before anything is awaited: a watch that follows the call finds the turn.
    this.claim(turnId);
    return this.driving(turnId, async (_feed, inbox) => {
      // Large files go to the blob store first: the journal holds references, as history does on Temporal.
      const kept = await keepInputFiles({
        messages: normalizeInput(parsedInput.data),
        store: this.blobStore,
        ...(this.options.fileLimits ? { limits: this.options.fileLimits } : {}),
      });
      // Before the lease: a server that cannot list its tools fails the turn before it is journaled.
      const host = await this.hostFor(turnId);
      const session = await this.journal.open({ turnId, owner: this.owner, leaseMs: this.host.leaseMs });
      const { entries, version } = await session.load();
      if (entries.length > 0) {
        await session.release();
        throw new Error(`turn ${turnId} already exists in the journal; call resumeTurn to continue it`);
      }
      const now = this.host.timers.now();
      const started = TurnEngine.start({ turnId, input: kept, config, now, ...(fork ? { fork } : {}) });
      this.engines.set(turnId, started.engine);
      const writer = new JournalWriter(session, version, [], this.host.observers);
      await writer.append(started.entries);
      return driveTurn({
        engine: started.engine,
        writer,
        host,
        inbox,
        ...(signal ? { signal } : {}),
        ...(earlier ? { earlier } : {}),
        ...(toolSession && { session: toolSession }),
        ...(parent && { parent }),
      });
    });
  }

  /** A new turn from a past position of a finished one (see `forkPrefix`): nothing before it runs again. */
  async forkTurn({ from, ...fork }: ForkTurnArgs, options?: { signal?: AbortSignal }): Promise<TurnResult> {
    return this.runTurn(forkedRun({ from, source: await this.finishedResult(from), ...fork }), options);
  }

  /**
   * Continues a turn from its durable head in the journal (after a crash, on another host).
   * Completed calls are never run again; see `TurnEngine.onResume` for calls caught mid-flight.
   */
  async resumeTurn(
    {
      turnId,
      takeOver = false,
      earlier,
      session: toolSession,
    }: { turnId: string; takeOver?: boolean } & Pick<RunTurnArgs, 'earlier' | 'session'>,
    {
      signal,
      onResumed,
    }: {
      signal?: AbortSignal;
      /** Called once this host holds the turn (its lease taken, its journal read), before it goes on. */
      onResumed?: () => void;
    } = {},
  ): Promise<TurnResult> {
    assertTurnId(turnId);
    this.claim(turnId);
    return this.driving(turnId, async (feed, inbox) => {
      const host = await this.hostFor(turnId);
      const session = await this.journal.open({
        turnId,
        owner: this.owner,
        leaseMs: this.host.leaseMs,
        takeOver,
      });
      const { entries, version } = await session.load();
      if (entries.length === 0) {
        await session.release();
        throw new DurableTurnsError(`turn ${turnId} is not in the journal; start it with runTurn`, {
          code: 'turn-not-journaled',
        });
      }
      // Watchers get what was recorded before, numbered as in the journal, then what comes now.
      for (const entry of entries) feed.recorded({ entry });
      const engine = TurnEngine.replay(entries);
      this.engines.set(turnId, engine);
      const writer = new JournalWriter(session, version, entries, this.host.observers);
      await writer.append(engine.onResume());
      onResumed?.();
      return driveTurn({
        engine,
        writer,
        host,
        inbox,
        ...(signal ? { signal } : {}),
        ...(earlier ? { earlier } : {}),
        ...(toolSession ? { session: toolSession } : {}),
      });
    });
  }

  /**
   * Sends a message into a turn this executor is running (as a conversation's `steer` does on
   * Temporal): the turn records it at its next model request, after the outputs of the calls running
   * now, or not at all once the model has answered without calls (see `TurnEngine.onSteer`; the
   * result's events say which). A repeated message id is taken once.
   */
  steer(turnId: string, { messageId, message }: { messageId: string; message: UserMessage | string }): void {
    const user: UserMessage = typeof message === 'string' ? { role: 'user', content: message } : message;
    this.runningInbox(turnId, 'steered').send({ kind: 'steer', messageId, message: user });
  }

  /** "Always allow" in a turn this executor runs (see `TurnHandle.grant`); throws the turn's refusal. */
  grant(turnId: string, grant: ApprovalGrantInput): void {
    const parsed = parsedOrThrow(approvalGrantSchema, grant, 'grant');
    this.runningInbox(turnId, 'given a grant').sendChecked({ kind: 'grant', grant: parsed });
  }

  /** Ends a grant of a turn this executor runs (see `TurnHandle.revoke`); throws the turn's refusal. */
  revoke(turnId: string, revocation: GrantRevocation): void {
    const parsed = parsedOrThrow(grantRevocationSchema, revocation, 'revocation');
    this.runningInbox(turnId, 'revoked a grant').sendChecked({ kind: 'revoke', ...parsed });
    // Its running sub-agents took the grant when they started: it ends there too.
    for (const id of subAgentsHolding(this.engines, turnId, parsed.grantId))
      this.inboxes.get(id)?.send({ kind: 'revoke', ...parsed });
  }

  private runningInbox(turnId: string, what: string): TurnInbox {
    const inbox = this.inboxes.get(turnId);
    if (!inbox)
      throw new Error(`turn ${turnId} is not running on this executor: only a running turn can be ${what}`);
    return inbox;
  }

  /**
   * A turn's progress as it happens, as `TurnHandle.watch` gives it on Temporal (same events, same
   * `seq`): every journal entry after `after` as `kind: 'entry'`, in order, and unless `live: false`
   * each response's text and reasoning while the model streams (`delta`, `restart`: see
   * `TurnWatchEvent`), before the response's own entry. It ends after `turn.finished`.
   *
   * The turn must be running on this executor (a watch opened right after calling `runTurn` or
   * `resumeTurn`, before awaiting it, sees it from the start) or finished in its journal (then its
   * entries are replayed, each response's text as one delta). A watcher reads at its own pace and
   * never holds the turn up; what streamed while it was not reading comes as one delta, never a gap.
   * It throws for a turn that is neither, and if the turn's drive here stops before it finished.
   */
  watch(
    turnId: string,
    options: InProcessWatchOptions & { live: false },
  ): AsyncGenerator<ProgressEntry & { kind: 'entry' }>;
  watch(turnId: string, options?: InProcessWatchOptions): AsyncGenerator<TurnWatchEvent>;
  async *watch(
    turnId: string,
    { after = 0, live = true, signal }: InProcessWatchOptions = {},
  ): AsyncGenerator<TurnWatchEvent> {
    assertTurnId(turnId);
    if (!Number.isInteger(after) || after < 0)
      throw new Error(`watch: after must be a sequence number (an integer ≥ 0), got ${String(after)}`);
    const feed = this.feeds.get(turnId) ?? (await this.recordedFeed(turnId));
    yield* watchTurnFeed({ feed, after, live, ...(signal ? { signal } : {}) });
  }

  /** What a turn running here is doing, has left of its budget, and allows (undefined: it does not run here). */
  stateOf(turnId: string): TurnStateView | undefined {
    const engine = this.engines.get(turnId);
    return engine && turnStateView(engine.view, this.host.timers.now());
  }

  /** How many entries the turn's journal holds now (its last sequence number; 0 for an unknown turn). */
  async journalLength(turnId: string): Promise<number> {
    const feed = this.feeds.get(turnId);
    if (feed) return feed.entries.length;
    return (await this.journal.read?.({ turnId }))?.length ?? 0;
  }

  /**
   * A finished turn's result, read from the journal: what `runTurn` returned (undefined for a turn
   * the journal does not hold, has not finished, or a journal without `read`).
   */
  async finishedResult(turnId: string): Promise<TurnResult | undefined> {
    const entries = (await this.journal.read?.({ turnId })) ?? [];
    if (entries.at(-1)?.type !== 'turn.finished') return undefined;
    return { ...TurnEngine.replay(entries).outcome(), events: entries.filter(isTranscriptEvent) };
  }

  /**
   * Removes a turn that is not running from the journal (a deleted conversation's turns): its
   * entries go, and its id can be used again. Refused for a turn running here or leased elsewhere.
   */
  async deleteTurn(turnId: string): Promise<void> {
    if (this.active.has(turnId))
      throw new Error(`turn ${turnId} is running on this executor: cancel it and wait for its end first`);
    if (!this.journal.delete)
      throw new Error("this executor's journal has no delete method: its turns cannot be deleted");
    await this.journal.delete({ turnId, owner: this.owner });
  }

  /** Closes the sessions its servers (`mcp`) keep for a key whose conversation ended (opened again by its next call). */
  async closeSessions(key: string): Promise<void> {
    await this.options.mcp?.closeSessions?.(key);
  }

  /** Runs one drive of a turn with a feed for its watchers; the feed stops with it. */
  private async driving(
    turnId: string,
    drive: (feed: TurnFeed, inbox: TurnInbox) => Promise<TurnResult>,
  ): Promise<TurnResult> {
    const feed = new TurnFeed(turnId);
    const inbox = new TurnInbox();
    this.feeds.set(turnId, feed);
    this.inboxes.set(turnId, inbox);
    try {
      const result = await drive(feed, inbox);
      feed.stop();
      return result;
    } catch (error) {
      feed.stop({ error });
      throw error;
    } finally {
      this.feeds.delete(turnId);
      this.inboxes.delete(turnId);
      this.engines.delete(turnId);
      this.active.delete(turnId);
    }
  }

  /** A finished turn's feed, from its journal; a clear error for any other turn. */
  private async recordedFeed(turnId: string): Promise<TurnFeed> {
    if (!this.journal.read)
      throw new Error(
        `turn ${turnId} is not running on this executor, and its journal has no read method to replay it: watch a turn while runTurn or resumeTurn runs it`,
      );
    const entries = await this.journal.read({ turnId });
    // It may have started while the journal was read.
    const started = this.feeds.get(turnId);
    if (started) return started;
    if (entries.length === 0)
      throw new Error(
        `turn ${turnId} is not running on this executor and is not in its journal: start it with runTurn (watch follows the turns this executor runs and replays finished ones)`,
      );
    if (entries.at(-1)?.type !== 'turn.finished')
      throw new Error(
        `turn ${turnId} has not finished and is not running on this executor (its journal ends at seq ${entries.length}; its host was lost, or another host runs it): continue it here with resumeTurn, then watch it`,
      );
    const feed = new TurnFeed(turnId);
    for (const entry of entries) feed.recorded({ entry });
    feed.stop();
    return feed;
  }

  /** Every turn of this executor runs with the same configuration: checked once, on first use. */
  private turnConfig(): TurnConfig {
    if (this.config) return this.config;
    const parsed = turnConfigSchema.safeParse(turnConfigOf(this.options));
    if (!parsed.success)
      throw new Error(`invalid turn configuration: ${formatIssues(parsed.error, { root: 'config' })}`);
    const refusal = this.options.model.cannotContinue;
    if (parsed.data.continuation === 'since-receipt' && refusal !== undefined)
      throw new Error(
        `invalid turn configuration: continuation 'since-receipt' cannot work with model ${this.options.model.name}: ${refusal}; use continuation 'full'`,
      );
    this.config = parsed.data;
    return parsed.data;
  }

  private claim(turnId: string): void {
    if (this.active.has(turnId))
      throw new Error(
        `turn ${turnId} is already running on this executor; wait for its result (resumeTurn is for a turn whose host was lost)`,
      );
    this.active.add(turnId);
  }
}

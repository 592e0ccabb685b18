import { randomUUID } from 'node:crypto';
import {
  type ApprovalGrantInput,
  approvalGrantSchema,
  blockedRefusal,
  blockMessage,
  busyRefusal,
  type ConversationAction,
  type ConversationHookEvent,
  type ConversationHookOutcome,
  type ConversationHooks,
  type ConversationState,
  type ConversationWatchOptions,
  closeConversation,
  conversationSessionKey,
  conversationTurnId,
  EarlierTurns,
  type GrantRevocation,
  grantInConversation,
  grantRevocationSchema,
  type Message,
  type MessageReceipt,
  newConversation,
  parsedOrThrow,
  revokeInConversation,
  runConversationHooks,
  sendMessage,
  steeredMessageIds,
  type TurnResult,
  turnEnded,
  turnStartOf,
  unknownConversation,
} from '../../core';
import type { InProcessExecutor } from '../in-process-executor';
import { admitMessage, parseSend } from './admit-message';
import { ChangeWaiters } from './change-waiters';
import type { ConversationStore } from './conversation-store';
import { handToRunningTurn } from './hand-to-running-turn';
import { type BranchTo, branchNotBegun, startBranchHere } from './in-process-branch';
import type { InProcessConversationsOptions, InProcessSendOptions } from './in-process-conversation-options';
import { conversationTurnArgs, journaledTranscript, type TurnArgsState } from './journaled-turn-context';
import { MemoryConversationStore } from './memory-conversation-store';
import { takeUpRunningTurn } from './take-up-running-turn';

export type { InProcessConversationsOptions, InProcessSendOptions } from './in-process-conversation-options';

interface Held {
  state: ConversationState;
  version: number;
  /** A change made in the background (a turn's end) that failed: `idle` reports it. */
  failure?: unknown;
}

/**
 * Conversations in this process, as `ConversationClient` gives them on Temporal: the same queue
 * (`ConversationState`, changed only by the core's functions), the same turns (`{id}#{n}`, run by the
 * executor, journaled as any turn), the same policies and receipts, so the same transcript events.
 * A turn's model requests send the earlier turns first, read from the journal, never copied into it.
 * One host drives a conversation at a time: the store refuses a save from a host that is behind.
 */
export class InProcessConversations {
  private readonly executor: InProcessExecutor;
  private readonly store: ConversationStore;
  private readonly held = new Map<string, Held>();
  private readonly loading = new Map<string, Promise<Held>>();
  /** Each conversation's changes, one at a time in arrival order. */
  private readonly chains = new Map<string, Promise<unknown>>();
  /** The turns running here: a cancel reaches them through their controller. */
  private readonly running = new Map<string, { controller: AbortController; done: Promise<TurnResult> }>();
  private readonly earlierTurns = new EarlierTurns();
  private readonly changes = new ChangeWaiters();
  private readonly hooks: readonly ConversationHooks[];
  private readonly onHookWarning: (warning: string) => void;

  constructor({
    executor,
    store = new MemoryConversationStore(),
    hooks = [],
    onHookWarning = (warning) => console.warn(warning),
  }: InProcessConversationsOptions) {
    this.executor = executor;
    this.store = store;
    this.hooks = hooks;
    this.onHookWarning = onHookWarning;
  }

  /**
   * Records a message and returns once it is recorded (not when its turn ends): where it stands —
   * started (its turn is running, and can be watched at once), queued, or steered. A `reject` while
   * a turn runs, or a send to a closed conversation, throws `ConversationRefusedError`.
   */
  async send(
    conversationId: string,
    message: string | Message,
    { messageId, policy }: InProcessSendOptions,
  ): Promise<MessageReceipt> {
    const sent = parseSend(conversationId, message, { messageId, ...(policy ? { policy } : {}) });
    const receipt = await this.serially(conversationId, async () => {
      const { state, version } = await this.hold(conversationId);
      const admitted = await admitMessage({
        state,
        first: version === 0 || branchNotBegun(state),
        sent,
        runHooks: (event) => this.runHooks(event),
      });
      const step =
        'refused' in admitted
          ? await this.applyChange(conversationId, (draft) => {
              if (admitted.closes) closeConversation(draft);
              const reason = admitted.refused;
              return { actions: [], receipt: blockMessage(draft, { messageId: sent.messageId, reason }) };
            })
          : await this.applyChange(conversationId, (draft) =>
              sendMessage(draft, { ...sent, message: admitted.message }),
            );
      return step.receipt;
    });
    if (receipt.status === 'rejected') throw busyRefusal(conversationId, receipt);
    if (receipt.status === 'blocked') throw blockedRefusal(conversationId, receipt);
    return receipt;
  }

  /**
   * "Always allow" in its later turns and its running one; throws the refusal (see
   * `grantInConversation`), and for a conversation not begun (its first message starts its session).
   */
  grant = (conversationId: string, grant: ApprovalGrantInput): Promise<unknown> =>
    this.change(conversationId, (s, version) => {
      if (version === 0) throw unknownConversation(conversationId);
      return grantInConversation(s, parsedOrThrow(approvalGrantSchema, grant, 'grant'));
    });

  /** Ends a grant of its, in its running turn too; throws the refusal (see `revokeInConversation`). */
  revoke = (conversationId: string, revocation: GrantRevocation): Promise<unknown> =>
    this.change(conversationId, (s) =>
      revokeInConversation(s, parsedOrThrow(grantRevocationSchema, revocation, 'revocation')),
    );

  /** The conversation's queue: its turns so far, the running one, what waits. */
  async state(conversationId: string): Promise<ConversationState> {
    return structuredClone((await this.hold(conversationId)).state);
  }

  private turnArgs(state: TurnArgsState, turnNumber: number) {
    const { earlierTurns, executor, store } = this;
    return conversationTurnArgs({ earlierTurns, executor, state, turnNumber, store });
  }

  private async endedResult(turnId: string): Promise<TurnResult> {
    const ended = await (this.running.get(turnId)?.done ?? this.executor.finishedResult(turnId));
    if (!ended) throw new Error(`turn ${turnId} is not running here and has not finished in the journal`);
    return ended;
  }

  /** Conversations in the store, by id. */
  list = (): Promise<string[]> => this.store.list();

  /** Turn `n` (from 1): its result once it ends (at once for one that has). */
  turnResult = (conversationId: string, n: number): Promise<TurnResult> =>
    this.endedResult(conversationTurnId(conversationId, n));

  /** Every message of the conversation's ended turns, in order; a branch's begins with its origin's. */
  transcript = async (conversationId: string): Promise<Message[]> =>
    journaledTranscript({
      state: (await this.hold(conversationId)).state,
      result: (id) => this.endedResult(id),
    });

  /**
   * A branch of conversation `from` (see `ConversationClient.branch`): a new conversation whose turns
   * come after `from`'s turn `afterTurn`, reading those turns by reference. `send` its first message.
   */
  branch = (from: string, to: BranchTo) =>
    startBranchHere({
      from,
      to,
      hold: (id) => this.hold(id),
      change: (id, apply) => this.change(id, apply),
      finishedResult: (turnId) => this.executor.finishedResult(turnId),
    });

  /** Closes it: further sends are refused; what waits is dropped (returned); a running turn goes on. */
  async close(conversationId: string): Promise<{ dropped: string[] }> {
    let dropped: string[] = [];
    let closedNow = false;
    let turns = 0;
    let notBegun = false;
    await this.change(conversationId, (state) => {
      notBegun = branchNotBegun(state);
      closedNow = !state.closed;
      dropped = closeConversation(state).dropped;
      turns = state.turnCount;
      return { actions: [] };
    });
    if (closedNow && !notBegun) await this.runHooks({ kind: 'sessionEnd', conversationId, turns, dropped });
    return { dropped };
  }

  /**
   * Deletes it: closes it, cancels a running turn and waits for its end (true outputs, as any
   * cancel), then removes its turns from the journal and its queue from the store; its id can then
   * begin a new conversation. @throws ConversationRefusedError (`conversation-not-found`).
   */
  async delete(conversationId: string): Promise<{ turns: number }> {
    // Held at version 0, it was only looked at (state, watch): never begun, as unknown as one not held.
    if ((await this.hold(conversationId)).version === 0) throw unknownConversation(conversationId);
    await this.close(conversationId);
    const { running } = (await this.hold(conversationId)).state;
    if (running) this.running.get(running.turnId)?.controller.abort();
    await this.idle(conversationId);
    return this.serially(conversationId, async () => {
      const { state, version } = await this.hold(conversationId);
      const turns = state.turnCount;
      for (let n = 1; n <= turns; n++) await this.executor.deleteTurn(`${conversationId}#${n}`);
      await this.store.delete(conversationId, version);
      this.held.delete(conversationId);
      return { turns };
    });
  }

  /**
   * Its turns' events one turn after another, across turn boundaries (see `ConversationClient.watch`):
   * from the running turn (or the next to start, or `fromTurn`) on, each to its end, then the next
   * once it starts. Ends once the conversation is closed and its last turn has ended, or on `signal`.
   */
  watch = (conversationId: string, options: ConversationWatchOptions = {}) =>
    this.changes.follow(conversationId, options, {
      state: async () => (await this.hold(conversationId)).state,
      watchTurn: (turnId, live) => this.executor.watch(turnId, { live }),
    });

  /**
   * Resolves once no turn of the conversation runs and no message waits (rejects if a change made
   * when a turn ended could not be saved).
   */
  async idle(conversationId: string): Promise<void> {
    const held = await this.hold(conversationId);
    await this.changes.until(() => {
      if (held.failure !== undefined) throw held.failure;
      return !held.state.running && held.state.next.length + held.state.queue.length === 0;
    });
  }

  /**
   * Carries on a conversation this host does not hold yet, after a crash or on another host: its
   * running turn continues from the journal (`takeOver` as `resumeTurn` has it) or, if it had not
   * written its start, starts again; what waited then follows as usual.
   */
  async resume(conversationId: string, { takeOver = false }: { takeOver?: boolean } = {}): Promise<void> {
    await this.serially(conversationId, async () => {
      if (this.held.has(conversationId)) return;
      const held = await this.load(conversationId);
      const running = held.state.running;
      if (!running) {
        this.held.set(conversationId, held);
        return;
      }
      const turnNumber = held.state.turnCount;
      const { controller, done } = await takeUpRunningTurn({
        executor: this.executor,
        running,
        takeOver,
        turn: this.turnArgs(held.state, turnNumber),
      });
      this.held.set(conversationId, held);
      this.follow(conversationId, running.turnId, controller, done);
      // What the lost host was told to do with it, done again: an interrupt's cancel, and the steers
      // (the turn takes each once: those it recorded before are ignored).
      if (running.cancelling) controller.abort();
      const cancel = () => controller.abort();
      for (const message of running.steers)
        handToRunningTurn(this.executor, cancel, { kind: 'steer', turnId: running.turnId, message });
    });
  }

  /** Applies one change to the conversation's state, in its turn (see `applyChange`). */
  private change<T extends { actions: ConversationAction[] }>(
    conversationId: string,
    apply: (state: ConversationState, version: number) => T,
  ): Promise<T> {
    return this.serially(conversationId, () => this.applyChange(conversationId, apply));
  }

  /** Applies one change to the conversation's state, saves it, then carries its actions out. */
  private async applyChange<T extends { actions: ConversationAction[] }>(
    conversationId: string,
    apply: (state: ConversationState, version: number) => T,
  ): Promise<T> {
    const held = await this.hold(conversationId);
    const draft = structuredClone(held.state);
    const step = apply(draft, held.version);
    const ends = (state: ConversationState) => state.closed && !state.running;
    const ended = ends(draft) && !ends(held.state);
    if (JSON.stringify(draft) !== JSON.stringify(held.state)) {
      held.version = await this.store.save(conversationId, draft, held.version);
      held.state = draft;
    }
    for (const action of step.actions) this.carryOut(conversationId, action);
    // Closed, and no turn of it runs: its sessions with MCP servers have no more use.
    if (ended) void this.executor.closeSessions(conversationSessionKey(draft)).catch(() => {});
    this.changes.notify();
    return step;
  }

  /** Runs the hooks of one event; warnings go to `onHookWarning`. */
  private async runHooks(event: ConversationHookEvent): Promise<ConversationHookOutcome> {
    if (this.hooks.length === 0) return { kind: 'go-on', warnings: [] };
    const outcome = await runConversationHooks(this.hooks, event);
    for (const warning of outcome.warnings) this.onHookWarning(warning);
    return outcome;
  }

  private serially<T>(conversationId: string, run: () => Promise<T>): Promise<T> {
    const before = this.chains.get(conversationId) ?? Promise.resolve();
    const result = before.then(run, run);
    this.chains.set(
      conversationId,
      result.catch(() => {}),
    );
    return result;
  }

  private async hold(conversationId: string): Promise<Held> {
    const found = this.held.get(conversationId);
    if (found) return found;
    // One load at a time: two at once would each hold a copy, and the staler one's save would fail.
    const loading = this.loading.get(conversationId) ?? this.load(conversationId);
    this.loading.set(conversationId, loading);
    const held = await loading.finally(() => this.loading.delete(conversationId));
    const meanwhile = this.held.get(conversationId);
    if (meanwhile) return meanwhile;
    if (held.state.running)
      throw new Error(
        `conversation ${conversationId} has turn ${held.state.running.turnId} running, not on this host: resume the conversation here (resume) once the host that ran it is gone`,
      );
    this.held.set(conversationId, held);
    return held;
  }

  private async load(conversationId: string): Promise<Held> {
    const { state, version } = await this.store.load(conversationId);
    return { state: state ?? newConversation(conversationId, randomUUID()), version };
  }

  private carryOut(conversationId: string, action: ConversationAction): void {
    const cancel = (turnId: string) => this.running.get(turnId)?.controller.abort();
    if (action.kind !== 'start-turn') return void handToRunningTurn(this.executor, cancel, action);
    const { turnId, turnNumber, grants } = action;
    const controller = new AbortController();
    // `runTurn` claims the turn before it awaits anything: it can be watched once `send` returns.
    const state = this.held.get(conversationId)?.state ?? { conversationId };
    // Its messages; a branch's forked turn 1 begins with the source turn's record (`turnStartOf`).
    const args = {
      turnId,
      ...turnStartOf(action),
      ...this.turnArgs(state, turnNumber),
      ...(grants && { grants }),
    };
    const done = this.executor.runTurn(args, { signal: controller.signal });
    this.follow(conversationId, turnId, controller, done);
  }

  /** When the turn ends (however), the conversation hears of it, with the steers it recorded. */
  private follow(
    conversationId: string,
    turnId: string,
    controller: AbortController,
    done: Promise<TurnResult>,
  ): void {
    this.running.set(turnId, { controller, done });
    void done
      .then(async (result) => {
        this.running.delete(turnId);
        const { status, reason } = result;
        await this.runHooks({
          kind: 'turnEnd',
          conversationId,
          turnId,
          status,
          ...(reason ? { reason } : {}),
        });
        const recordedSteers = steeredMessageIds(result.events);
        const { grants = [], grantsRevoked = [] } = result;
        const ended = { turnId, recordedSteers, grants, grantsRevoked };
        return this.change(conversationId, (state) => turnEnded(state, ended));
      })
      .catch((error: unknown) => {
        // The turn did not end: its drive here stopped (its lease went to another host, the journal
        // failed). The conversation is not this host's any more; `resume` takes it up again.
        this.running.delete(turnId);
        const held = this.held.get(conversationId);
        this.held.delete(conversationId);
        if (held) held.failure = error;
        this.changes.notify();
      });
  }
}

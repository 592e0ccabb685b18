import { type WorkflowHandle, WorkflowNotFoundError } from '@temporalio/client';
import type { ApprovalKeys } from '../codec/approval-keys';
import { signApproval } from '../codec/approval-signature';
import type { TurnWatchEvent } from '../contract/live-text';
import {
  approvalSchema,
  approveUpdate,
  grantUpdate,
  type ProgressEntry,
  progressQuery,
  revokeUpdate,
  stateQuery,
  steerSchema,
  steerSignal,
  type TurnWorkflowResult,
} from '../contract/turn-workflow';
import {
  type ApprovalDecision,
  type ApprovalDecisionInput,
  type ApprovalEvent,
  type ApprovalGrantInput,
  approvalGrantSchema,
  type DecisionVia,
  grantRevocationSchema,
  LiveTextAssembler,
  subAgentTurnId,
  type TurnResult,
  type TurnStateView,
  type UserMessage,
  viewAt,
} from '../core';
import { formatIssues } from '../core/schema/format-issues';
import { pause } from './abortable-pause';
import { lastWorkflowTaskFailure } from './last-workflow-task-failure';
import { readLiveText } from './read-live-text';
import { noWorkerPolled, serverDidNotAnswer } from './server-did-not-answer';
import { decideShown, reportedBelow } from './sub-agent-decisions';
import { readPackedResult, unpackResult } from './unpack-result';

/** How long a watcher waits for a busy workflow task to end before it queries the journal anyway. */
const busyPatienceMs = 1_000;
/**
 * How long a watcher keeps asking while the server or the worker answering its queries does not
 * answer (a query times out while every worker is busy, a server restarts) before it gives up.
 */
const unansweredPatienceMs = 120_000;

export interface WatchOptions {
  /** How long to wait between looks when nothing new came (ms). */
  intervalMs?: number;
  /** Start after this entry's sequence number (0: from the start). */
  after?: number;
  /** Also the text and reasoning as they stream (default true). */
  live?: boolean;
  /** Stops the watch (it returns) at its next look, without waiting for the turn's next event. */
  signal?: AbortSignal;
  /**
   * How long each look (a describe, a journal query) may wait for its answer; one that takes longer
   * counts as not answered, and the watch asks again. Each look gets a deadline of its own: a
   * deadline set around the whole watch would also bind the looks after it passed.
   */
  lookTimeoutMs?: number;
}

/** Who decides, kept with each decision: the approver's name and where they decided. */
export interface Decider {
  by?: string;
  via?: DecisionVia;
}

/** A decision's details besides the call: why, who, and through what (defaults: the handle's). */
export interface DecideOptions {
  reason?: string;
  by?: string;
  via?: DecisionVia;
}

function optionsOf<T extends DecideOptions>(options: string | T | undefined): Partial<T> {
  if (typeof options === 'string') return (options ? { reason: options } : {}) as Partial<T>;
  const defined = Object.entries(options ?? {}).filter(([, value]) => value !== undefined && value !== '');
  return Object.fromEntries(defined) as Partial<T>;
}

/** One turn on Temporal, as a caller holds it. */
export class TurnHandle {
  constructor(
    readonly turnId: string,
    private readonly workflow: WorkflowHandle,
    /** Who this handle's decisions come from (a decision may name another). */
    private readonly decider: Decider = {},
    /** With keys, decisions, grants and revocations go signed (see `signApproval`). */
    private readonly approvalKeys?: ApprovalKeys,
  ) {}

  /**
   * When the turn's workflow closed (epoch ms, the server's clock), or undefined while it runs. A
   * turn's journal times its calls, not its responses or its end: this is how long it took.
   */
  async closedAt(): Promise<number | undefined> {
    return (await this.workflow.describe()).closeTime?.getTime();
  }

  /** The turn's result once it ends. A cancelled turn resolves too, with status `cancelled`. */
  async result(): Promise<TurnResult> {
    const result = (await this.workflow.result()) as TurnWorkflowResult;
    if (result.packedLength === undefined) return unpackResult(result);
    return unpackResult({ ...result, packed: await readPackedResult(this.turnId, this.workflow, result) });
  }

  /**
   * Sends a message into the running turn (a conversation's `steer` does this): it records it at its
   * next model request, after the outputs of the calls running now, or not at all once the model has
   * answered without calls (the result's events and `steered` say which). A repeated message id is
   * taken once.
   */
  async steer({ messageId, message }: { messageId: string; message: string | UserMessage }): Promise<void> {
    const steer = steerSchema.safeParse({
      messageId,
      message: typeof message === 'string' ? { role: 'user', content: message } : message,
    });
    if (!steer.success) throw new Error(`invalid steer: ${formatIssues(steer.error, { root: 'steer' })}`);
    await this.workflow.signal(steerSignal, steer.data);
  }

  /** Asks the turn to stop: open calls get interrupted outputs and the turn ends `cancelled`. */
  async cancel(): Promise<void> {
    await this.workflow.cancel();
  }

  /**
   * What the turn is doing now (phase, wave, each call, usage, budget left); a running turn's wall
   * time by this process's clock (the workflow's stands still between its tasks).
   */
  async state(): Promise<TurnStateView> {
    try {
      return viewAt(await this.workflow.query(stateQuery), Date.now());
    } catch (error) {
      throw await this.whyUnanswered(error);
    }
  }

  /**
   * The sub-agents (`agentTool`) of this turn's running calls, each a turn of its own, with its
   * state: where a person finds what they wait for (their approvals are decided on their handles).
   */
  async subAgents(): Promise<{ toolCallId: string; turn: TurnHandle; state: TurnStateView }[]> {
    const { calls, background } = await this.state();
    const running = [...calls, ...background].filter((c) => c.phase === 'running');
    const found = await Promise.all(
      running.map(async ({ toolCallId }) => {
        const turn = this.subAgent(toolCallId);
        // Most running calls are not agents: no workflow of that id.
        const state = await turn.state().catch(() => undefined);
        return state ? [{ toolCallId, turn, state }] : [];
      }),
    );
    return found.flat();
  }

  /**
   * A query that failed, with why when the turn's workflow task keeps failing (a payload encrypted
   * with a key its workers lack, code that does not replay): the task failure's words, not only
   * "not answered in time" or "failed to query" (the server says either, depending on when the
   * query meets the failing task). Otherwise the error as it was.
   */
  private async whyUnanswered(error: unknown): Promise<unknown> {
    if (error instanceof WorkflowNotFoundError) return error;
    const failing = await lastWorkflowTaskFailure({
      client: this.workflow.client,
      workflowId: this.workflow.workflowId,
    });
    if (!failing) return error;
    return new Error(`turn ${this.turnId}'s workers cannot run its workflow task: ${failing}`, {
      cause: error,
    });
  }

  /**
   * The turn's progress as it happens, until it ends: every journal entry (call accepted, attempt
   * started and finished, output recorded, response completed, the end) as `kind: 'entry'`, in
   * order; and, unless `live: false`, each response's text and reasoning while the model streams
   * (`delta`, `gap`, `restart`: see `TurnWatchEvent`), before the response's own entry. Live text
   * is read from the model activity's heartbeat (`describe()`), not from the workflow: watching
   * costs the turn no history, no workflow task and no update slot, however many watch.
   */
  watch(options: WatchOptions & { live: false }): AsyncGenerator<ProgressEntry & { kind: 'entry' }>;
  watch(options?: WatchOptions): AsyncGenerator<TurnWatchEvent>;
  async *watch({
    intervalMs = 200,
    after = 0,
    live = true,
    signal,
    lookTimeoutMs,
  }: WatchOptions = {}): AsyncGenerator<TurnWatchEvent> {
    const assembler = new LiveTextAssembler();
    const requested = new Set<number>();
    let newest = -1;
    let seq = after;
    let caughtUp = false;
    let finished = false;
    /** The history version the journal was last read whole at (see `LiveTextLook.version`). */
    let readAt: string | undefined;
    /** Since when the history has moved under a workflow task that is still running. */
    let busySince: number | undefined;
    /** Since when the server has not answered (see `unansweredPatienceMs`). */
    let unansweredSince: number | undefined;
    /** What its sub-agents waited on at the last page read (a report moves the history). */
    let subAgentWaits = '[]';
    const patiently = async <T>(ask: () => Promise<T>): Promise<T | undefined> => {
      try {
        const answer =
          lookTimeoutMs === undefined
            ? await ask()
            : await this.workflow.client.connection.withDeadline(Date.now() + lookTimeoutMs, ask);
        unansweredSince = undefined;
        return answer;
      } catch (error) {
        if (!serverDidNotAnswer(error) && !noWorkerPolled(error)) throw error;
        unansweredSince ??= Date.now();
        if (Date.now() - unansweredSince > unansweredPatienceMs) throw await this.whyUnanswered(error);
        await pause({ ms: Math.max(intervalMs, 1_000), signal });
        return undefined;
      }
    };
    for (;;) {
      if (signal?.aborted) return;
      // Look before reading the journal: a response streaming now was requested before this look,
      // so its `model.requested` is in the page read next, and a response that ended meanwhile is too.
      const look = live ? await patiently(() => readLiveText({ workflow: this.workflow })) : undefined;
      // Not answered: look again (the patience above bounds how long).
      if (live && look === undefined) continue;
      // The journal is read by query, which a worker answers: only when history moved since, and
      // not while a workflow task runs (unless that keeps up for long: a turn busy the whole time).
      const moved = look === undefined || look.version !== readAt;
      if (moved && look?.busy) busySince ??= Date.now();
      if (moved && look?.busy && Date.now() - (busySince ?? 0) < busyPatienceMs) {
        // Read once its workflow task is done.
      } else if (moved) {
        busySince = undefined;
        const page = await patiently(() => this.workflow.query(progressQuery, seq));
        if (page === undefined) continue;
        for (const item of page.entries) {
          seq = item.seq;
          const { entry } = item;
          if (entry.type === 'model.requested') requested.add(entry.responseIndex);
          if (entry.type === 'model.requested' || entry.type === 'model.responded')
            newest = Math.max(newest, entry.responseIndex);
          if (entry.type === 'model.responded' && live)
            yield* assembler.complete({ responseIndex: entry.responseIndex, message: entry.message });
          yield { kind: 'entry', ...item };
        }
        const approvals = page.subAgentApprovals ?? [];
        const waits = JSON.stringify(approvals.map((a) => [a.turnId, a.toolCallId]));
        if (live && waits !== subAgentWaits) yield { kind: 'sub-agent-approvals', approvals };
        subAgentWaits = waits;
        if (page.entries.length === 0) seq = Math.max(seq, page.lastSeq);
        caughtUp = seq >= page.lastSeq;
        finished = page.finished;
        if (caughtUp) readAt = look?.version;
      }
      for (const { stream, details } of look?.streaming ?? []) {
        const r = details.responseIndex;
        // A watcher that started after a response's request (`after`) never sees its entry.
        const placed = requested.has(r) || (after > 0 && caughtUp && r > newest);
        if (placed) yield* assembler.snapshot({ stream, details });
      }
      if (finished && caughtUp) return;
      // Jittered, so watchers that started together do not all ask at the same moment.
      if (caughtUp) await pause({ ms: intervalMs * (0.75 + Math.random() / 2), signal });
    }
  }

  /**
   * Runs a call that waits for approval; with `input`, with those arguments instead of the model's
   * (the turn refuses an edit that does not match the tool's schema, and nothing changes). A string
   * is the reason (the form before options).
   */
  approve(toolCallId: string, options?: string | (DecideOptions & { input?: unknown })): Promise<string> {
    const { input, ...rest } = optionsOf(options);
    return this.decide({ toolCallId, decision: 'approve', ...rest, ...(input !== undefined && { input }) });
  }

  /** Does not run the call: its output is an error the model reads, quoting the reason. */
  reject(toolCallId: string, options?: string | DecideOptions): Promise<string> {
    return this.decide({ toolCallId, decision: 'reject', ...optionsOf(options) });
  }

  /** Does not run the call: `output` is its output, as if the tool had answered. */
  respond(toolCallId: string, output: string, options?: DecideOptions): Promise<string> {
    return this.decide({ toolCallId, decision: 'respond', output, ...optionsOf(options) });
  }

  /**
   * Sends a decision (see `ApprovalDecision`), with this client's approver as `by` unless it names
   * one. Rejects when the turn refuses it: the call does not wait, or an edit fails the schema. A
   * call that waits in one of the turn's sub-agents (`TurnStateView.subAgentApprovals`) is decided
   * there (signed, if so, for that turn). Resolves to the turn it was decided on.
   */
  async decide(
    decision: ApprovalDecisionInput,
    { agentCallId }: { agentCallId?: string } = {},
  ): Promise<string> {
    const parsed = approvalSchema.safeParse({ ...this.deciderFields(), ...decision });
    if (!parsed.success)
      throw new Error(`malformed approval: ${formatIssues(parsed.error, { root: 'approval' })}`);
    const hop = await reportedBelow({ turn: this, toolCallId: parsed.data.toolCallId, agentCallId });
    if (hop) return decideShown({ turn: hop.turn, decision: parsed.data, shown: hop.shown, depth: 1 });
    return this.decideHere(parsed.data);
  }

  /**
   * The decision to this turn's own update (signed for this turn when the handle has keys), not
   * sent on to a sub-agent: `decide` sends it here once it knows the call waits here.
   */
  async decideHere(decision: ApprovalDecision): Promise<string> {
    const { kind: _kind, ...signed } = this.signed({ kind: 'approval', ...decision });
    await this.workflow.executeUpdate(approveUpdate, { args: [signed] });
    return this.turnId;
  }

  /** A handle on the sub-agent turn of this turn's call (`subAgentTurnId`), deciding as this one does. */
  subAgent(toolCallId: string): TurnHandle {
    const id = subAgentTurnId(this.turnId, toolCallId);
    return new TurnHandle(id, this.workflow.client.getHandle(id), this.decider, this.approvalKeys);
  }

  /**
   * "Always allow" (see `ApprovalGrant`): the tool's calls that match run without asking, from now
   * on, calls waiting now included; each is recorded as approved by the grant. Rejects when the turn
   * refuses it (it ended, or a grant of that id is in force).
   */
  async grant(grant: ApprovalGrantInput): Promise<void> {
    const parsed = approvalGrantSchema.safeParse({ ...this.deciderFields(), ...grant });
    if (!parsed.success) throw new Error(`malformed grant: ${formatIssues(parsed.error, { root: 'grant' })}`);
    await this.workflow.executeUpdate(grantUpdate, {
      args: [this.signed({ kind: 'grant', grant: parsed.data }).grant],
    });
  }

  /** Ends a grant: the tool's next calls ask again (those it let run stay approved), in its running sub-agents too. */
  async revoke(grantId: string, options: Omit<DecideOptions, 'reason'> = {}): Promise<void> {
    const parsed = grantRevocationSchema.safeParse({
      ...this.deciderFields(),
      ...optionsOf(options),
      grantId,
    });
    if (!parsed.success)
      throw new Error(`malformed revocation: ${formatIssues(parsed.error, { root: 'revocation' })}`);
    const { kind: _kind, ...signed } = this.signed({ kind: 'revoke', ...parsed.data });
    await this.workflow.executeUpdate(revokeUpdate, { args: [signed] });
    // Its running sub-agents took the grant when they started: it ends there too (and below them).
    for (const { turn, state } of await this.subAgents().catch(() => []))
      if (state.grants?.some((g) => g.grantId === grantId))
        await turn.revoke(grantId, options).catch(() => {});
  }

  /** As it is sent: signed with this handle's keys when it has some, else as it is. */
  private signed<E extends ApprovalEvent>(event: E): E {
    return this.approvalKeys ? signApproval({ turnId: this.turnId, event, keys: this.approvalKeys }) : event;
  }

  private deciderFields(): Decider {
    return { ...(this.decider.by !== undefined && { by: this.decider.by }), via: this.decider.via ?? 'api' };
  }
}

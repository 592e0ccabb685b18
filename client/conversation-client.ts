import {
  ApplicationFailure,
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import type { Workflow } from '@temporalio/common';
import {
  closeUpdate,
  conversationGrantUpdate,
  conversationRevokeUpdate,
  conversationStateQuery,
  conversationWorkflowId,
  conversationWorkflowType,
  sendUpdate,
  type TurnTemplate,
  turnTemplateSchema,
} from '../contract/conversation-workflow';
import {
  type ApprovalGrantInput,
  approvalGrantSchema,
  blockedRefusal,
  busyRefusal,
  type ConversationOrigin,
  type ConversationRefusedError,
  type ConversationState,
  type ConversationWatchEvent,
  type ConversationWatchOptions,
  closedRefusal,
  conversationTurnId,
  conversationTurnIds,
  type DecisionVia,
  DurableTurnsError,
  followConversation,
  formatIssues,
  grantRevocationSchema,
  type Message,
  type MessageReceipt,
  normalizeInput,
  parsedOrThrow,
  type SendPolicy,
  sendArgsSchema,
  threadIdSchema,
  transcriptTurnIds,
  unknownConversation,
} from '../core';
import { pause } from './abortable-pause';
import { type BranchOptions, startBranch } from './conversation-branch';
import {
  type ConversationListFilters,
  type ConversationMemo,
  type ConversationSummary,
  listConversationPage,
} from './conversation-list';
import { childOf, deleteWorkflowRuns, waitUntilGone } from './delete-workflow-runs';
import { type StartTurnArgs, startTurnSchema } from './start-turn-args';
import type { TurnClient } from './turn-client';
import { TurnHandle } from './turn-handle';
import { turnWorkflowInputFrom } from './turn-workflow-input';

/** How a conversation's turns run (the model, budgets, …): what `TurnClient.start` takes for a turn. */
export type ConversationTurnOptions = Omit<
  StartTurnArgs,
  'turnId' | 'conversationId' | 'input' | 'ifRunning'
>;

export interface SendOptions {
  /** The message's id: a retried send with the same id is the same message (never a second turn). */
  messageId: string;
  /** What the message does while a turn runs (see `SendPolicy`); default `enqueue`. */
  policy?: SendPolicy;
  /**
   * How the conversation's turns run; read when this send creates the conversation, ignored after.
   * Without it the send goes only to a conversation that exists (else `conversation-not-found`).
   */
  turn?: ConversationTurnOptions;
  /**
   * The conversation's workflow continues as new, between turns, once its run's history passes this
   * many events (default 2,000); read when this send creates it.
   */
  continueAsNewAfterEvents?: number;
}

/**
 * Conversations on Temporal: a thread of turns, one running at a time, that owns its transcript
 * across them. `send` creates the conversation on its first message. The turns are ordinary turns
 * (`{conversationId}#{n}`), so `TurnClient` watches, approves and cancels them as any other.
 */
export class ConversationClient {
  constructor(private readonly turns: TurnClient) {}

  /**
   * Records a message and returns once it is recorded (not when its turn ends): where it stands —
   * started (with its turn id), queued, or steered. A `reject` while a turn runs, or a send to a
   * closed conversation, throws `ConversationRefusedError`.
   */
  async send(
    conversationId: string,
    message: string | Message,
    options: SendOptions,
  ): Promise<MessageReceipt> {
    const id = threadIdSchema.safeParse(conversationId);
    if (!id.success) throw new Error(formatIssues(id.error, { root: 'conversationId' }));
    const args = sendArgsSchema.safeParse({
      messageId: options.messageId,
      message: typeof message === 'string' ? normalizeInput(message)[0] : message,
      ...(options.policy ? { policy: options.policy } : {}),
    });
    if (!args.success) throw new Error(`invalid message: ${formatIssues(args.error)}`);
    let receipt: MessageReceipt;
    try {
      receipt = options.turn
        ? await this.turns.client.workflow.executeUpdateWithStart('send', {
            args: [args.data],
            // No update id of ours: Temporal would answer a repeated one with its first result, and a
            // retried send must say where the message stands now (the conversation dedupes by message id).
            startWorkflowOperation: this.creation(conversationId, options.turn, options),
          })
        : await this.workflow(conversationId).executeUpdate(sendUpdate, { args: [args.data] });
    } catch (error) {
      throw (await this.refusal(conversationId, error)) ?? error;
    }
    if (receipt.status === 'rejected') throw busyRefusal(conversationId, receipt);
    if (receipt.status === 'blocked') throw blockedRefusal(conversationId, receipt);
    return receipt;
  }

  /**
   * A branch of conversation `from`: a new conversation (`options.conversationId`) whose turns come
   * after `from`'s turn `afterTurn` — its model requests read `from`'s turns 1 to `afterTurn` (and
   * what `from` itself branched from) by reference: nothing of them runs again or is copied. It has
   * no turn yet: `send` its first message. `from` goes on as it was. Refused when `afterTurn` is not
   * a turn of `from` that ended, or the id is taken.
   */
  async branch(
    from: string,
    options: Omit<BranchOptions, 'turn'> & { turn: ConversationTurnOptions },
  ): Promise<{ conversationId: string; origin: ConversationOrigin }> {
    const { client, taskQueue } = this.turns;
    return startBranch({
      client,
      taskQueue,
      from,
      options: { ...options, turn: turnTemplate(options.turn) },
    });
  }

  /** The conversation's queue: its turns so far, the running one, what waits. */
  async state(conversationId: string): Promise<ConversationState> {
    return this.workflow(conversationId).query(conversationStateQuery);
  }

  /** Turn `n` (from 1) of the conversation, as any turn. */
  turn(conversationId: string, n: number): TurnHandle {
    const turnId = conversationTurnId(conversationId, n);
    // Through the turn client: its handles decide as its approver, signed with its keys.
    return this.turns.attach(turnId);
  }

  /**
   * Every message of the conversation's ended turns, in order (the running turn's are not in it
   * yet); a branch's begins with those of the turns it came after.
   */
  async transcript(conversationId: string): Promise<Message[]> {
    const messages: Message[] = [];
    for (const turnId of transcriptTurnIds(await this.state(conversationId))) {
      const result = await this.turns.attach(turnId).result();
      messages.push(
        ...(result.events[0]?.type === 'turn.started' ? result.events[0].input : []),
        ...result.transcript,
      );
    }
    return messages;
  }

  /**
   * Its turns' events one turn after another, across turn boundaries, as they happen: from the
   * running turn (or the next to start, or `fromTurn`) on, each turn's entries (and with `live`, its
   * streamed text) to its end, then the next turn's once it starts, whoever sent its message. Ends
   * once the conversation is closed and its last turn has ended, or when `signal` aborts. A watch of
   * a conversation that does not exist yet waits for its first message.
   */
  watch(
    conversationId: string,
    { fromTurn, live = true, signal }: ConversationWatchOptions = {},
  ): AsyncGenerator<ConversationWatchEvent> {
    // Looks at an idle conversation back off, so a watch left open costs its worker little.
    let wait = watchPauseMs.min;
    return followConversation({
      conversationId,
      fromTurn,
      signal,
      look: async () => {
        const state = await this.state(conversationId).catch((error: unknown) => {
          // Until its first message, the conversation has no workflow to ask.
          if (error instanceof WorkflowNotFoundError) return undefined;
          throw error;
        });
        if (!state || state.closed || state.running) return state;
        // Idle and open: its workflow may have ended without closing (terminated): then it is done.
        const { status } = await this.workflow(conversationId).describe();
        return status.name === 'RUNNING' ? state : { ...state, closed: true };
      },
      waitForChange: async () => {
        await pause({ ms: wait, signal });
        wait = Math.min(wait * 2, watchPauseMs.max);
      },
      watchTurn: (turnId) => {
        wait = watchPauseMs.min;
        return new TurnHandle(turnId, this.turns.client.workflow.getHandle(turnId)).watch({
          live,
          ...(signal ? { signal } : {}),
        });
      },
    });
  }

  /**
   * "Always allow" in the conversation's later turns and its running one (see `ApprovalGrant`; the
   * scope is `conversation`), with this client's approver as `by` unless the grant names one.
   * Rejects with the conversation's refusal (closed, a grant of that id in force).
   */
  async grant(conversationId: string, grant: ApprovalGrantInput): Promise<void> {
    const { by, via = 'api' } = this.turns.approver;
    const parsed = parsedOrThrow(approvalGrantSchema, { ...(by && { by }), via, ...grant }, 'grant');
    await this.workflow(conversationId)
      .executeUpdate(conversationGrantUpdate, { args: [parsed] })
      .catch((error: unknown) => grantRefused(conversationId, error));
  }

  /** Ends a conversation's grant, in its running turn too; rejects when none of that id can be in force. */
  async revoke(conversationId: string, grantId: string, options: { by?: string; via?: DecisionVia } = {}) {
    const { by, via = 'api' } = { ...this.turns.approver, ...options };
    const parsed = parsedOrThrow(grantRevocationSchema, { grantId, ...(by && { by }), via }, 'revocation');
    await this.workflow(conversationId)
      .executeUpdate(conversationRevokeUpdate, { args: [parsed] })
      .catch((error: unknown) => grantRefused(conversationId, error));
  }

  /** Closes it: further sends are refused; what waits is dropped (returned); a running turn goes on. */
  async close(conversationId: string): Promise<{ dropped: string[] }> {
    return this.workflow(conversationId).executeUpdate(closeUpdate);
  }

  /** A page of this task queue's conversations, newest first, from Visibility (see `ConversationSummary`). */
  async list(
    options: ConversationListFilters & { pageSize?: number; cursor?: string } = {},
  ): Promise<{ conversations: ConversationSummary[]; nextCursor?: string }> {
    return listConversationPage({ client: this.turns.client, taskQueue: this.turns.taskQueue, ...options });
  }

  /**
   * Deletes it, with its turns' histories: closes it if open (its session-end hooks run, what waits
   * is dropped), cancels a running turn and waits for the conversation's workflow to end (the turn's
   * calls get true outputs, as any cancel), then deletes every run of each turn and of the
   * conversation, and resolves once the server has let go of its id: a later `send` begins a new
   * conversation. A turn that cannot end (no worker polls its queue) keeps this waiting.
   * Files its turns kept in the blob store are not deleted (they are content-addressed and may be
   * shared; expire them with the store's own lifecycle rules).
   * @throws ConversationRefusedError (`conversation-not-found`) for an id with no conversation.
   */
  async delete(conversationId: string): Promise<{ turns: number }> {
    const handle = this.workflow(conversationId);
    const { status } = await handle.describe().catch((error: unknown) => {
      if (error instanceof WorkflowNotFoundError) throw unknownConversation(conversationId);
      throw error;
    });
    if (status.name === 'RUNNING')
      await handle.executeUpdate(closeUpdate).catch((error: unknown) => {
        // Closed meanwhile (by another caller, or it ended): what follows is the same.
        if (!closedFailure(error) && !(error instanceof WorkflowNotFoundError)) throw error;
      });
    const { running } = await this.state(conversationId);
    if (running) {
      const turn = this.turns.attach(running.turnId);
      // It may have ended meanwhile; either way its end is awaited: its calls get true outputs.
      await turn.cancel().catch((error: unknown) => {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
      });
      await turn.result().catch(() => undefined);
    }
    // A closed conversation's workflow ends once no turn runs (a terminated one has ended already).
    await handle.result().catch(() => undefined);
    const { turnCount } = await this.state(conversationId);
    const client = this.turns.client;
    const turnIds = conversationTurnIds(conversationId, turnCount);
    // Only its own turns: a standalone turn may have taken one of their ids (then that turn never ran).
    const own = await Promise.all(turnIds.map((turnId) => childOf(client, turnId, handle.workflowId)));
    const deleted = turnIds.filter((_, i) => own[i]);
    for (const turnId of deleted) await deleteWorkflowRuns(client, turnId);
    await deleteWorkflowRuns(client, handle.workflowId);
    // Each id is free once the server has removed it (each on its shard's own schedule).
    await Promise.all([...deleted, handle.workflowId].map((id) => waitUntilGone(client, id)));
    return { turns: turnCount };
  }

  /** The start of a conversation's workflow, for the send that creates it. */
  private creation(
    conversationId: string,
    turn: ConversationTurnOptions,
    options: SendOptions,
  ): WithStartWorkflowOperation<Workflow> {
    const memo: ConversationMemo = { startedAt: new Date().toISOString() };
    return new WithStartWorkflowOperation(conversationWorkflowType, {
      workflowId: conversationWorkflowId(conversationId),
      taskQueue: this.turns.taskQueue,
      args: [
        {
          conversationId,
          turn: turnTemplate(turn),
          ...(options.continueAsNewAfterEvents
            ? { continueAsNewAfterEvents: options.continueAsNewAfterEvents }
            : {}),
        },
      ],
      memo: { ...memo },
      workflowIdConflictPolicy: 'USE_EXISTING',
      // A closed conversation's id is not started again: its sends are refused.
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
  }

  /** What a failed send means: a closed conversation, one that does not exist, or neither. */
  private async refusal(
    conversationId: string,
    error: unknown,
  ): Promise<ConversationRefusedError | undefined> {
    // A closed conversation's workflow has ended (its id is not started again), or is ending and
    // refuses the update by type.
    if (error instanceof WorkflowExecutionAlreadyStartedError || closedFailure(error))
      return closedRefusal(conversationId);
    if (!(error instanceof WorkflowNotFoundError)) return undefined;
    // A send with no turn options to an id with no workflow, or to one whose workflow has ended.
    const status = await this.workflow(conversationId)
      .describe()
      .then((description) => description.status.name)
      .catch(() => undefined);
    if (status === undefined)
      return unknownConversation(conversationId, 'its first send says how its turns run (the turn options)');
    // Running (it continued as new as the update came): not a refusal, the error stands.
    return status === 'RUNNING' ? undefined : closedRefusal(conversationId);
  }

  private workflow(conversationId: string) {
    return this.turns.client.workflow.getHandle(conversationWorkflowId(conversationId));
  }
}

/** What every turn of the conversation runs with, as a turn start would have it. */
function turnTemplate(options: ConversationTurnOptions): TurnTemplate {
  const args: StartTurnArgs = { ...options, turnId: 'template', input: 'template' };
  const parsed = startTurnSchema.safeParse(args);
  if (!parsed.success) throw new Error(`invalid turn options: ${formatIssues(parsed.error)}`);
  return turnTemplateSchema.parse(turnWorkflowInputFrom({ args, parsed: parsed.data }));
}

/** How long a watch waits between looks for the next turn: short after a turn, longer while idle. */
const watchPauseMs = { min: 100, max: 2_000 };

/** The update was refused because the conversation is closed. */
function closedFailure(error: unknown): boolean {
  return (
    error instanceof WorkflowUpdateFailedError &&
    error.cause instanceof ApplicationFailure &&
    error.cause.type === 'conversation-closed'
  );
}

/** The conversation's refusal of a grant or revoke, in its own words (as the in-process host throws it). */
function grantRefused(conversationId: string, error: unknown): never {
  if (error instanceof WorkflowUpdateFailedError && error.cause)
    throw new DurableTurnsError(error.cause.message, { code: 'grant-refused', cause: error });
  if (error instanceof WorkflowNotFoundError) throw unknownConversation(conversationId);
  throw error;
}

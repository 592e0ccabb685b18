import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  getExternalWorkflowHandle,
  log,
  makeContinueAsNewFunc,
  ParentClosePolicy,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  startChild,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { TurnActivities } from '../../contract/activities';
import {
  type ConversationWorkflowInput,
  type ConversationWorkflowInputArgs,
  closeUpdate,
  conversationStateQuery,
  conversationWorkflowInputSchema,
  sendUpdate,
} from '../../contract/conversation-workflow';
import {
  conversationGrantSignal,
  conversationRevokeSignal,
  steerSignal,
  type TurnWorkflowInput,
} from '../../contract/turn-workflow';
import {
  type ApprovalGrant,
  blockMessage,
  type ConversationAction,
  type ConversationHookEvent,
  type ConversationHookOutcome,
  ConversationRefusedError,
  type ConversationState,
  closeConversation,
  closedRefusal,
  conversationSessionKey,
  formatIssues,
  newConversation,
  receiptOf,
  sendArgsSchema,
  sendMessage,
  type TurnStatus,
  turnEnded,
  turnStartOf,
  withGrants,
} from '../../core';
import { turnWorkflow } from '../turn/turn-workflow';
import { installGrantHandlers } from './conversation-grant-handlers';

interface TurnEnd {
  turnId: string;
  recordedSteers: string[];
  grants?: ApprovalGrant[];
  grantsRevoked?: string[];
  status: TurnStatus;
  reason?: string;
}

/** Hooks run in a local activity: once per event, however often the workflow replays. */
const hookActivities = proxyLocalActivities<TurnActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 3 },
});

export interface ConversationWorkflowResult {
  conversationId: string;
  turns: number;
}

/**
 * A conversation: its workflow id (`conversation:{id}`) is the fence, as a turn's is. It keeps the
 * queue of turns (`ConversationState`), never their transcripts: each turn is a child workflow
 * (`{id}#{n}`) whose model requests read the earlier turns from those turns' own results. A child,
 * so that the conversation hears of every end (a terminated turn too) from Temporal itself, and
 * closing the conversation's workflow cancels its running turn. It continues as new between turns
 * only (a parent cannot while a child runs), carrying the queue.
 */
export async function conversationWorkflow(
  rawInput: ConversationWorkflowInputArgs,
): Promise<ConversationWorkflowResult> {
  const input = conversationWorkflowInputSchema.parse(rawInput);
  // Conversations begun before hooks existed replay without them (no local activity where none was).
  const hooked = patched('conversation-hooks');
  const runConversationHooks = (event: ConversationHookEvent): Promise<ConversationHookOutcome> =>
    hooked ? hookActivities.runConversationHooks(event) : Promise.resolve({ kind: 'go-on', warnings: [] });
  const state: ConversationState =
    input.state ?? newConversation(input.conversationId, uuid4(), input.origin, input.fork);
  const actions: ConversationAction[] = [];
  /** Turns that ended, with the steers each recorded. */
  const ended: TurnEnd[] = [];
  /** Turns whose workflow exists (or could not be started): a `started` receipt waits for it. */
  const begun = new Set<string>();

  // Its first run starts the session: the session-start hooks run before any message is taken. A
  // branch's session starts with its first message, as a conversation's does (it was begun without).
  let sessionReady = input.state !== undefined;
  const branchBegun = input.origin !== undefined && input.state === undefined;
  let firstSend = false;
  /** Why the session-start hooks refused the conversation, if they did. */
  let sessionRefusal: string | undefined;
  setHandler(
    sendUpdate,
    async (args) => {
      const sent = sendArgsSchema.parse(args);
      firstSend = true;
      // Messages that came while the session-start hooks ran get their refusal; later ones find it closed.
      const early = !sessionReady;
      await condition(() => sessionReady);
      if (early && sessionRefusal !== undefined && !receiptOf(state, sent.messageId))
        return blockMessage(state, { messageId: sent.messageId, reason: sessionRefusal });
      // A message seen before is answered from its receipt; a closed conversation refuses: no hook runs.
      if (!receiptOf(state, sent.messageId) && !state.closed) {
        const submitted = await runConversationHooks({
          kind: 'promptSubmit',
          conversationId: state.conversationId,
          messageId: sent.messageId,
          message: sent.message,
          policy: sent.policy,
          ...(state.running ? { runningTurnId: state.running.turnId } : {}),
        });
        if (submitted.kind === 'refuse')
          return (
            receiptOf(state, sent.messageId) ??
            blockMessage(state, { messageId: sent.messageId, reason: submitted.reason })
          );
        if (submitted.message) sent.message = submitted.message;
      }
      let step: ReturnType<typeof sendMessage>;
      try {
        step = sendMessage(state, sent);
      } catch (error) {
        // Closed while its hooks ran: refused as any send to a closed conversation.
        if (ConversationRefusedError.isInstance(error))
          throw ApplicationFailure.create({ message: error.message, type: error.code });
        throw error;
      }
      actions.push(...step.actions);
      const { receipt } = step;
      // A receipt that names a turn is true when the sender gets it: the turn can be watched at once.
      // (A turn of an earlier run began in that run.)
      if (receipt.status === 'started' && state.running?.turnId === receipt.turnId)
        await condition(() => begun.has(receipt.turnId));
      return receipt;
    },
    {
      // Refused here, before the update is accepted, nothing of it reaches history.
      validator: (args) => {
        const parsed = sendArgsSchema.safeParse(args);
        if (!parsed.success) throw new Error(`invalid message: ${formatIssues(parsed.error)}`);
        if (state.closed && !receiptOf(state, parsed.data.messageId))
          throw ApplicationFailure.create({
            message: closedRefusal(state.conversationId).message,
            type: 'conversation-closed',
          });
      },
    },
  );
  setHandler(closeUpdate, async () => {
    const closedNow = !state.closed;
    const closed = closeConversation(state);
    // A branch closed before its first message never began a session: it ends none.
    if (closedNow && !(branchBegun && !firstSend))
      await runConversationHooks({
        kind: 'sessionEnd',
        conversationId: state.conversationId,
        turns: state.turnCount,
        dropped: closed.dropped,
      });
    return closed;
  });
  setHandler(conversationStateQuery, () => state);
  installGrantHandlers({ input, state, actions });

  if (branchBegun) await condition(() => firstSend || state.closed);
  if (!sessionReady && !(branchBegun && !firstSend)) {
    const started = await runConversationHooks({
      kind: 'sessionStart',
      conversationId: state.conversationId,
    });
    // Refused: the conversation closes before its first message is taken (which gets the reason).
    if (started.kind === 'refuse') {
      closeConversation(state);
      sessionRefusal = started.reason;
    }
  }
  sessionReady = true;
  // A run continued from an earlier one: the turn that was running then has ended (it continues
  // as new only between turns), so nothing is running now.
  for (;;) {
    await condition(() => actions.length > 0 || ended.length > 0 || idleAndDone(state, input));
    for (const end of ended.splice(0)) {
      const { turnId, status, reason } = end;
      await runConversationHooks({
        kind: 'turnEnd',
        conversationId: state.conversationId,
        turnId,
        status,
        ...(reason ? { reason } : {}),
      });
      actions.push(...turnEnded(state, end).actions);
    }
    for (const action of actions.splice(0)) await carryOut(action, input, state, ended, begun);
    if (actions.length > 0 || ended.length > 0 || state.running) continue;
    if (state.closed) {
      await condition(allHandlersFinished);
      await closeHeldSessions(input, state);
      return { conversationId: state.conversationId, turns: state.turnCount };
    }
    if (continueAsNewDue(input)) {
      await condition(allHandlersFinished);
      if (actions.length === 0 && !state.running)
        // Its memo (when it began, for the list) goes on with it.
        // The state carries what a branch came from: its fork record is not carried again.
        await makeContinueAsNewFunc<typeof conversationWorkflow>({ memo: workflowInfo().memo ?? {} })({
          ...withoutBranchStart(input),
          state,
        });
    }
  }
}

/**
 * A closed conversation's sessions with session-keeping servers are closed on the worker that holds
 * them (over stdio, its server processes exit), not left to their idle close; sessions other workers
 * had before close when idle. Only conversations whose turns reported a holder reach this — none
 * recorded before it existed — so older histories replay as they were. A holder that is gone (or
 * fails) changes nothing: the conversation has ended either way.
 */
async function closeHeldSessions(input: ConversationWorkflowInput, state: ConversationState): Promise<void> {
  const holder = input.sessions?.current ?? input.sessions?.queue;
  if (holder === undefined) return;
  const { closeToolSessions } = proxyActivities<TurnActivities>({
    taskQueue: holder,
    scheduleToStartTimeout: '10 seconds',
    startToCloseTimeout: '30 seconds',
    retry: { maximumAttempts: 1 },
  });
  const key = conversationSessionKey({
    conversationId: state.conversationId,
    incarnation: state.incarnation,
  });
  await closeToolSessions({ key }).catch((error: unknown) =>
    log.info(
      `conversation ${state.conversationId}: its sessions were not closed on ${holder}: ${String(error)}`,
    ),
  );
}

function idleAndDone(state: ConversationState, input: ConversationWorkflowInput): boolean {
  return !state.running && (state.closed || continueAsNewDue(input));
}

function continueAsNewDue(input: ConversationWorkflowInput): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || info.historyLength >= input.continueAsNewAfterEvents;
}

async function carryOut(
  action: ConversationAction,
  input: ConversationWorkflowInput,
  state: ConversationState,
  ended: TurnEnd[],
  begun: Set<string>,
): Promise<void> {
  if (action.kind === 'cancel-turn') {
    // A turn that ended meanwhile needs no cancel.
    await getExternalWorkflowHandle(action.turnId)
      .cancel()
      .catch((error: unknown) => log.info(`cancel of ${action.turnId} not delivered: ${String(error)}`));
    return;
  }
  if (action.kind === 'steer') {
    // The turn records it at its next model request, or not at all (then its result says so, and
    // the steer starts the next turn).
    const { messageId, message } = action.message;
    // A turn that ended meanwhile cannot be signalled: its end gives the steer to the next turn.
    await getExternalWorkflowHandle(action.turnId)
      .signal(steerSignal, { messageId, message })
      .catch((error: unknown) =>
        log.info(`steer ${messageId} not delivered to ${action.turnId}: ${String(error)}`),
      );
    return;
  }
  if (action.kind === 'grant' || action.kind === 'revoke') {
    // A turn that ended meanwhile cannot be signalled: the conversation already keeps the change.
    const turn = getExternalWorkflowHandle(action.turnId);
    await (action.kind === 'grant'
      ? turn.signal(conversationGrantSignal, action.grant)
      : turn.signal(conversationRevokeSignal, action.revocation)
    ).catch((error: unknown) =>
      log.info(`${action.kind} not delivered to ${action.turnId}: ${String(error)}`),
    );
    return;
  }
  const turnInput: TurnWorkflowInput = {
    ...input.turn,
    turnId: action.turnId,
    conversationId: input.conversationId,
    conversationTurn: action.turnNumber,
    ...(state.incarnation ? { conversationIncarnation: state.incarnation } : {}),
    ...(state.origin ? { conversationOrigin: state.origin } : {}),
    // Its messages; a branch's forked turn 1 begins with the source turn's record (`turnStartOf`).
    ...turnStartOf(action),
    run: 1,
    // The conversation's grants: the turn starts with them, besides those its template gives.
    ...(action.grants && { config: withGrants(input.turn.config, action.grants) }),
    // Where the turns before held their sessions: this one's calls go there too.
    ...(input.sessions ? { sessions: input.sessions } : {}),
  };
  try {
    const child = await startChild(turnWorkflow, {
      workflowId: action.turnId,
      args: [turnInput],
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
    begun.add(action.turnId);
    child.result().then(
      (result) => {
        // Kept in the input, so that continue-as-new carries it on.
        if (result.sessions) input.sessions = result.sessions;
        ended.push({
          turnId: action.turnId,
          recordedSteers: result.steered ?? [],
          // The grants in force at its end (none: absent); a turn without a result changes none.
          grants: result.grants ?? [],
          ...(result.grantsRevoked ? { grantsRevoked: result.grantsRevoked } : {}),
          status: result.status,
          ...(result.reason ? { reason: result.reason } : {}),
        });
      },
      (error: unknown) =>
        ended.push({
          turnId: action.turnId,
          recordedSteers: [],
          status: 'failed',
          reason: `the turn's workflow ended without a result: ${String(error)}`,
        }),
    );
  } catch (error) {
    // The id is taken (a standalone turn named like this conversation's turn): it cannot run.
    log.error(
      `conversation ${input.conversationId}: turn ${action.turnId} could not start: ${String(error)}`,
    );
    begun.add(action.turnId);
    ended.push({
      turnId: action.turnId,
      recordedSteers: [],
      status: 'failed',
      reason: `the turn could not start: ${String(error)}`,
    });
  }
}

/** A run's input less what began a branch (its state carries the origin; the fork went to turn 1). */
function withoutBranchStart(input: ConversationWorkflowInput): ConversationWorkflowInput {
  const { origin: _origin, fork: _fork, ...rest } = input;
  return rest;
}

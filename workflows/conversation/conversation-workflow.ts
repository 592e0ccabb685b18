import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  ParentClosePolicy,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import {
  type ConversationWorkflowInput,
  type ConversationWorkflowInputArgs,
  closeUpdate,
  conversationStateQuery,
  conversationWorkflowInputSchema,
  sendUpdate,
} from '../../contract/conversation-workflow';
import type { TurnWorkflowInput } from '../../contract/turn-workflow';
import {
  type ConversationAction,
  type ConversationState,
  closeConversation,
  formatIssues,
  newConversation,
  receiptOf,
  sendArgsSchema,
  sendMessage,
  turnEnded,
  type WaitingMessage,
} from '../../core';
import { turnWorkflow } from '../turn/turn-workflow';

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
  const state: ConversationState = input.state ?? newConversation(input.conversationId);
  const actions: ConversationAction[] = [];
  const ended: string[] = [];
  /** Turns whose workflow exists (or could not be started): a `started` receipt waits for it. */
  const begun = new Set<string>();

  setHandler(
    sendUpdate,
    async (args) => {
      const step = sendMessage(state, args);
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
          throw new Error(`conversation ${state.conversationId} is closed: it takes no more messages`);
      },
    },
  );
  setHandler(closeUpdate, () => closeConversation(state));
  setHandler(conversationStateQuery, () => state);

  // A run continued from an earlier one: the turn that was running then has ended (it continues
  // as new only between turns), so nothing is running now.
  for (;;) {
    await condition(() => actions.length > 0 || ended.length > 0 || idleAndDone(state, input));
    for (const turnId of ended.splice(0))
      actions.push(...turnEnded(state, { turnId, recordedSteers: [] }).actions);
    for (const action of actions.splice(0)) await carryOut(action, input, ended, begun);
    if (actions.length > 0 || ended.length > 0 || state.running) continue;
    if (state.closed) {
      await condition(allHandlersFinished);
      return { conversationId: state.conversationId, turns: state.turnCount };
    }
    if (continueAsNewDue(input)) {
      await condition(allHandlersFinished);
      if (actions.length === 0 && !state.running)
        await continueAsNew<typeof conversationWorkflow>({ ...input, state });
    }
  }
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
  ended: string[],
  begun: Set<string>,
): Promise<void> {
  if (action.kind === 'cancel-turn') {
    await getExternalWorkflowHandle(action.turnId).cancel();
    return;
  }
  if (action.kind === 'steer') {
    // Not delivered into the running turn yet: the turn does not take steers, so it ends without
    // having recorded it, and the steer starts the next turn (as one arriving after its last request).
    return;
  }
  const turnInput: TurnWorkflowInput = {
    ...input.turn,
    turnId: action.turnId,
    conversationId: input.conversationId,
    conversationTurn: action.turnNumber,
    input: action.messages.map((m: WaitingMessage) => m.message),
    run: 1,
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
      () => ended.push(action.turnId),
      () => ended.push(action.turnId),
    );
  } catch (error) {
    // The id is taken (a standalone turn named like this conversation's turn): it cannot run.
    log.error(
      `conversation ${input.conversationId}: turn ${action.turnId} could not start: ${String(error)}`,
    );
    begun.add(action.turnId);
    ended.push(action.turnId);
  }
}

import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { progressQuery } from '../contract/turn-workflow';
import {
  type ChatConversations,
  type ChatDecision,
  conversationTurnId,
  conversationTurnIds,
  type SendPolicy,
  turnOfMessage,
} from '../core';
import { pause } from './abortable-pause';
import { ConversationClient, type ConversationTurnOptions } from './conversation-client';
import type { TurnClient } from './turn-client';

/**
 * Conversations on Temporal as a chat front end needs them (`ChatConversations`, for the `useChat`
 * route of `durable-turns/ui-stream`). Everything is read from the conversation and its turns, so
 * any number of web servers can serve one chat.
 */
export function chatConversations(
  turns: TurnClient,
  {
    turn,
    policy,
  }: {
    /** How a new conversation's turns run (the model, budgets, …): read when a chat's first message creates it. */
    turn: ConversationTurnOptions;
    /** What a message does while a turn runs (`SendPolicy`); default `enqueue`. */
    policy?: SendPolicy;
  },
): ChatConversations {
  const conversations = new ConversationClient(turns);
  const state = (conversationId: string) =>
    conversations.state(conversationId).catch((error: unknown) => {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    });
  return {
    async send(conversationId, { messageId, text }, signal) {
      const receipt = await conversations.send(conversationId, text, {
        messageId,
        turn,
        ...(policy ? { policy } : {}),
      });
      if (receipt.status === 'started' || receipt.status === 'steered') return { turnId: receipt.turnId };
      // Queued: its turn starts once the running one ends.
      return turnOfMessage({
        messageId,
        look: () => state(conversationId),
        pause: (ms) => pause({ ms, signal }),
        signal,
      });
    },
    async runningTurn(conversationId) {
      return (await state(conversationId))?.running?.turnId;
    },
    async turns(conversationId) {
      const now = await state(conversationId);
      return conversationTurnIds(conversationId, now?.turnCount ?? 0);
    },
    async latestTurn(conversationId) {
      const now = await state(conversationId);
      if (!now || now.turnCount === 0) return undefined;
      return now.running?.turnId ?? conversationTurnId(conversationId, now.turnCount);
    },
    async decide(turnId, { toolCallId, approved, reason }: ChatDecision) {
      const handle = turns.attach(turnId);
      try {
        const options = { via: 'chat' as const, ...(reason !== undefined && { reason }) };
        await (approved ? handle.approve(toolCallId, options) : handle.reject(toolCallId, options));
        return 'recorded';
      } catch (error) {
        // Refused by the turn (the call waits for no decision), or the turn is gone.
        if (error instanceof WorkflowUpdateFailedError || error instanceof WorkflowNotFoundError)
          return 'not-waiting';
        throw error;
      }
    },
    async journalEnd(turnId) {
      // A page from past the end: no entries, only where the journal ends.
      const page = await turns.client.workflow
        .getHandle(turnId)
        .query(progressQuery, Number.MAX_SAFE_INTEGER);
      return page.lastSeq;
    },
    watch(turnId, signal) {
      return turns.attach(turnId).watch({ after: 0, signal });
    },
  };
}

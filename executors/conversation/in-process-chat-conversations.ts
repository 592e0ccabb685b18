import { type ChatConversations, conversationTurnIds, type SendPolicy, turnOfMessage } from '../../core';
import type { InProcessExecutor } from '../in-process-executor';
import type { ChatApprovals } from './chat-approvals';
import type { InProcessConversations } from './in-process-conversations';

/**
 * Conversations of this process as a chat front end needs them (`ChatConversations`, for the
 * `useChat` route of `durable-turns/ui-stream`): the same turns and record as on Temporal; the
 * page's approvals reach the turns through `approvals`, which must be the executor's approver.
 */
export function inProcessChatConversations({
  conversations,
  executor,
  approvals,
  policy,
}: {
  conversations: InProcessConversations;
  executor: InProcessExecutor;
  approvals: ChatApprovals;
  /** What a message does while a turn runs (`SendPolicy`); default `enqueue`. */
  policy?: SendPolicy;
}): ChatConversations {
  return {
    async send(conversationId, { messageId, text }, signal) {
      const receipt = await conversations.send(conversationId, text, {
        messageId,
        ...(policy ? { policy } : {}),
      });
      if (receipt.status === 'started' || receipt.status === 'steered') return { turnId: receipt.turnId };
      return turnOfMessage({
        messageId,
        look: () => conversations.state(conversationId),
        pause: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
        signal,
      });
    },
    async runningTurn(conversationId) {
      return (await conversations.state(conversationId)).running?.turnId;
    },
    async turns(conversationId) {
      return conversationTurnIds(conversationId, (await conversations.state(conversationId)).turnCount);
    },
    async latestTurn(conversationId) {
      const { running, turnCount } = await conversations.state(conversationId);
      return running?.turnId ?? conversationTurnIds(conversationId, turnCount).at(-1);
    },
    async decide(turnId, decision) {
      return approvals.decide(turnId, decision);
    },
    journalEnd(turnId) {
      return executor.journalLength(turnId);
    },
    watch(turnId, signal) {
      return executor.watch(turnId, { after: 0, signal });
    },
  };
}

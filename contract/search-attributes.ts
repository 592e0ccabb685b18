import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
/**
 * Custom search attributes the turn workflow keeps up to date, so operators can filter turns in
 * `TurnClient.list` and the Temporal Web UI. A server must have them registered before a worker
 * starts turns; the embedded dev server registers them at start.
 */
export const turnSearchAttributes = {
  status: { name: 'DurableTurnStatus', type: 'Keyword' },
  conversationId: { name: 'DurableTurnConversationId', type: 'Keyword' },
  waitingForApproval: { name: 'DurableTurnWaitingForApproval', type: 'Bool' },
  /** The model the turn runs on (its name on the worker). */
  model: { name: 'DurableTurnModel', type: 'Keyword' },
  /** Tool calls started so far, and tokens (input + output) spent so far: the list's columns. */
  toolCalls: { name: 'DurableTurnToolCalls', type: 'Int' },
  tokens: { name: 'DurableTurnTokens', type: 'Int' },
} as const;

export type TurnSearchAttributeType =
  (typeof turnSearchAttributes)[keyof typeof turnSearchAttributes]['type'];

export const turnSearchAttributeList: readonly { name: string; type: TurnSearchAttributeType }[] =
  Object.values(turnSearchAttributes);

/** Typed keys for upserting from workflow code and filtering from clients. */
export const turnStatusKey = defineSearchAttributeKey(
  turnSearchAttributes.status.name,
  SearchAttributeType.KEYWORD,
);
export const conversationIdKey = defineSearchAttributeKey(
  turnSearchAttributes.conversationId.name,
  SearchAttributeType.KEYWORD,
);
export const waitingForApprovalKey = defineSearchAttributeKey(
  turnSearchAttributes.waitingForApproval.name,
  SearchAttributeType.BOOL,
);
export const modelKey = defineSearchAttributeKey(
  turnSearchAttributes.model.name,
  SearchAttributeType.KEYWORD,
);
export const toolCallsKey = defineSearchAttributeKey(
  turnSearchAttributes.toolCalls.name,
  SearchAttributeType.INT,
);
export const tokensKey = defineSearchAttributeKey(turnSearchAttributes.tokens.name, SearchAttributeType.INT);

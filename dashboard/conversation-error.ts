import { DurableTurnsError } from '../core';
import { ApiError } from './api-error';
import { type UpstreamContext, upstreamError } from './upstream-error';

/** A refused message or branch: its conversation is not there (404), or cannot take it now (409). */
const refusalStatus: Record<string, 404 | 409> = {
  'conversation-not-found': 404,
  'conversation-closed': 409,
  'conversation-busy': 409,
  'message-blocked': 409,
  // A branch (`ConversationClient.branch`): not after an ended turn of its source, or its id is taken.
  'invalid-branch-point': 409,
  'conversation-exists': 409,
};

/**
 * A conversation call's failure as the API answers it: a refusal by its status above, a missing
 * workflow as a 404 naming the conversation (not a turn), anything else as `upstreamError` says.
 */
export function conversationError({
  error,
  context,
  conversationId,
}: {
  error: unknown;
  context: UpstreamContext;
  conversationId: string;
}): ApiError {
  const refused = DurableTurnsError.isInstance(error) ? refusalStatus[error.code] : undefined;
  if (refused === 409) return new ApiError(409, (error as DurableTurnsError).message);
  const mapped = refused === 404 ? undefined : upstreamError({ error, context });
  if (mapped && mapped.status !== 404) return mapped;
  // The dashboard sends no turn options, so it cannot begin a conversation: say what can.
  return new ApiError(
    404,
    `no conversation ${conversationId} in namespace ${context.namespace}; GET /api/conversations lists them (a conversation begins with a first message that says how its turns run: ConversationClient.send, or durable-turns send)`,
  );
}

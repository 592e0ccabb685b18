import type { UpdateDefinition } from '@temporalio/common';
import { setHandler } from '@temporalio/workflow';
import type { z } from 'zod';
import {
  type ConversationWorkflowInput,
  conversationGrantUpdate,
  conversationRevokeUpdate,
} from '../../contract/conversation-workflow';
import {
  approvalGrantSchema,
  type ConversationAction,
  type ConversationState,
  type ConversationStep,
  grantInConversation,
  grantRefusal,
  grantRevocationSchema,
  parsedOrThrow,
  revokeInConversation,
  revokeRefusal,
} from '../../core';

/**
 * The conversation's `grant` and `revoke` updates: refused in the validator (a refused grant never
 * reaches history), applied to its state in the handler, whose actions hand them to the running turn.
 */
export function installGrantHandlers({
  input,
  state,
  actions,
}: {
  input: ConversationWorkflowInput;
  state: ConversationState;
  actions: ConversationAction[];
}): void {
  const grantChange = <A, T>(
    update: UpdateDefinition<{ accepted: true }, [A]>,
    { schema, what }: { schema: z.ZodType<T>; what: string },
    refusal: (on: ConversationState, parsed: T) => string | undefined,
    change: (on: ConversationState, parsed: T) => ConversationStep,
  ) =>
    setHandler(
      update,
      (arg) => {
        actions.push(...change(state, schema.parse(arg)).actions);
        return { accepted: true as const };
      },
      {
        validator: (arg) => {
          // Its turns take only signed grants, checked by each turn: the conversation holds no key.
          if (input.turn.config.approvals?.signed)
            throw new Error(
              `conversation ${state.conversationId} has signed turns: give grants signed, to a turn (an approval that remembers for the conversation), not to the conversation`,
            );
          const refused = refusal(state, parsedOrThrow(schema, arg, what));
          if (refused !== undefined) throw new Error(refused);
        },
      },
    );
  grantChange(
    conversationGrantUpdate,
    { schema: approvalGrantSchema, what: 'grant' },
    grantRefusal,
    (on, grant) => grantInConversation(on, { ...grant, at: Date.now() }),
  );
  grantChange(
    conversationRevokeUpdate,
    { schema: grantRevocationSchema, what: 'revocation' },
    revokeRefusal,
    revokeInConversation,
  );
}

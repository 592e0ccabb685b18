import { defineQuery, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import {
  branchForkSchema,
  type ConversationState,
  conversationOriginSchema,
  conversationStateSchema,
  type MessageReceipt,
  type SendArgs,
} from '../core/conversation';
import type { ApprovalGrantInput, GrantRevocation } from '../core/schema/approval-grant';
import { toolSessionsSchema, turnWorkflowInputSchema } from './turn-workflow';

/** A conversation's workflow id: a prefix of its own, so it never collides with a turn's id. */
export const conversationWorkflowIdPrefix = 'conversation:';

export function conversationWorkflowId(conversationId: string): string {
  return `${conversationWorkflowIdPrefix}${conversationId}`;
}

/** What every turn of a conversation runs with: a turn's input less what each turn has of its own. */
export const turnTemplateSchema = turnWorkflowInputSchema.omit({
  turnId: true,
  conversationId: true,
  conversationTurn: true,
  conversationIncarnation: true,
  conversationOrigin: true,
  input: true,
  // A fork is one turn's (a branch's turn 1, `ConversationClient.branch`), never every turn's.
  fork: true,
  carried: true,
  carriedChunks: true,
  run: true,
  sessions: true,
});
export type TurnTemplate = z.infer<typeof turnTemplateSchema>;

export const conversationWorkflowInputSchema = z.object({
  conversationId: z.string().min(1),
  turn: turnTemplateSchema,
  /** Set by the workflow itself at continue-as-new: the conversation so far. */
  state: conversationStateSchema.optional(),
  /** A branch (`ConversationClient.branch`): the turns of other conversations that come before its own. */
  origin: conversationOriginSchema.optional(),
  /** A branch whose turn 1 is a fork of a turn of its source (see `BranchFork`). */
  fork: branchForkSchema.optional(),
  /** Set by the workflow itself at continue-as-new: where its sessions are held (`ToolSessions`). */
  sessions: toolSessionsSchema.optional(),
  /** Continue-as-new between turns once the run's history passes this many events. */
  continueAsNewAfterEvents: z.number().int().positive().default(2_000),
});
export type ConversationWorkflowInput = z.infer<typeof conversationWorkflowInputSchema>;
export type ConversationWorkflowInputArgs = z.input<typeof conversationWorkflowInputSchema>;

/** Records a message (idempotent by its id) and says where it stands; a closed conversation refuses it. */
export const sendUpdate = defineUpdate<MessageReceipt, [SendArgs]>('send');
/** Closes the conversation: what waits is dropped (returned), the running turn goes on to its end. */
export const closeUpdate = defineUpdate<{ dropped: string[] }, []>('close');
/** "Always allow" for the conversation's later turns and its running one (see `grantInConversation`). */
export const conversationGrantUpdate = defineUpdate<{ accepted: true }, [ApprovalGrantInput]>('grant');
/** Ends a conversation's grant, in its running turn too (see `revokeInConversation`). */
export const conversationRevokeUpdate = defineUpdate<{ accepted: true }, [GrantRevocation]>('revoke');
/** The conversation's queue as it stands. */
export const conversationStateQuery = defineQuery<ConversationState>('conversationState');

export const conversationWorkflowType = 'conversationWorkflow';

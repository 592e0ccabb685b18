import { z } from 'zod';
import {
  conversationOriginSchema,
  conversationStateSchema,
  messageIdSchema,
  messageReceiptSchema,
  messageSchema,
  sendPolicySchema,
  threadIdSchema,
} from '../core';
import { cursorSchema, pageLimitSchema } from './api-schemas';

/** The schemas of the conversation routes: requests as they arrive, responses as they leave. */

export const conversationListQuerySchema = z.strictObject({
  /** Conversations whose id starts with this. */
  search: z.string().min(1).max(256).optional(),
  status: z.enum(['open', 'closed']).optional(),
  cursor: cursorSchema.optional(),
  limit: pageLimitSchema,
});

export const conversationParamsSchema = z.strictObject({ id: threadIdSchema });

export const sendMessageBodySchema = z.strictObject({
  // Within the body limit (16 KiB) for most text; a body past it is a 413.
  text: z.string().max(8_000).regex(/\S/, 'text is blank: write the message'),
  policy: sendPolicySchema.optional(),
  /** Default: a fresh UUID. The page makes one per typed message, so a retried POST is the same message. */
  messageId: messageIdSchema.optional(),
});

export const conversationSummarySchema = z.object({
  conversationId: z.string(),
  /** `open`, `closed`, or how its workflow ended otherwise (`terminated`, …). */
  status: z.string(),
  startTime: z.iso.datetime(),
  closeTime: z.iso.datetime().optional(),
});
export type ConversationSummaryBody = z.infer<typeof conversationSummarySchema>;

export const conversationListResponseSchema = z.object({
  namespace: z.string(),
  conversations: z.array(conversationSummarySchema),
  nextCursor: z.string().optional(),
});

export const conversationTurnSchema = z.object({
  turnId: z.string(),
  number: z.number().int().positive(),
  /** `running`, or how it ended (a `TurnResult` status). */
  status: z.string(),
  /** Ended without a result (terminated, say): why, as far as the server says. */
  problem: z.string().optional(),
});
export type ConversationTurnBody = z.infer<typeof conversationTurnSchema>;

export const conversationResponseSchema = z.object({
  conversationId: z.string(),
  namespace: z.string(),
  state: conversationStateSchema,
  /** The first turn shown: its latest turns are (at most `shownTurns`), the earlier ones not read. */
  firstTurn: z.number().int().positive(),
  /** Turn `firstTurn` … `turnCount`, in order. */
  turns: z.array(conversationTurnSchema),
  /** Every message of those turns that ended, in order. */
  transcript: z.array(messageSchema),
  /** Which of those turns the transcript lacks, and why (no result to read). */
  transcriptProblem: z.string().optional(),
  webUiUrl: z.url().optional(),
});

export const sendMessageResponseSchema = messageReceiptSchema;

export const branchBodySchema = z.strictObject({
  /** After which of the source's ended turns (from 1; 0: before its first). */
  afterTurn: z.number().int().nonnegative(),
  /** The new conversation's id. Default: `<id>-branch-<6 hex digits>`. */
  conversationId: threadIdSchema.optional(),
});

export const branchResponseSchema = z.object({
  conversationId: z.string(),
  /** What comes before its own turns: the source's turns up to `afterTurn`, then what the source came from. */
  origin: conversationOriginSchema,
  from: z.string(),
  afterTurn: z.number().int().nonnegative(),
  /** The model its turns ask: the source's, as its turn 1 recorded it. */
  model: z.string(),
});

import { z } from 'zod';
import { quoted } from '../schema/format-issues';
import { userMessageSchema } from '../schema/messages';
import { conversationIdSchema } from '../schema/turn-id';

/**
 * What a message sent to a conversation does while one of its turns runs:
 * - `enqueue` (the default): it starts a turn of its own once the running one and those queued before
 *   it have ended, in arrival order;
 * - `reject`: it is refused, naming the running turn;
 * - `interrupt`: the running turn is cancelled (its calls get true outputs, as any cancel) and the
 *   message starts the next turn, ahead of the queue;
 * - `steer`: it joins the running turn as a user message at the turn's next model request; no running
 *   call is stopped. One that arrives after the turn's last request starts the next turn instead.
 * With no turn running, every policy starts a turn.
 */
export const sendPolicySchema = z.enum(['enqueue', 'reject', 'interrupt', 'steer']);
export type SendPolicy = z.infer<typeof sendPolicySchema>;

/** Turn ids of a conversation are its id, `#`, and the turn's number: room is left for the suffix. */
export const conversationIdMaxLength = 240;

/** A conversation's id: a turn or conversation id (see `conversationIdSchema`) short enough to name its turns. */
export const threadIdSchema = conversationIdSchema.refine((id) => id.length <= conversationIdMaxLength, {
  error: (issue) =>
    `conversation id ${quoted(issue.input)} is too long to name its turns: at most ${conversationIdMaxLength} characters`,
});

/** The id the sender gives a message: a retried send with the same id is the same message. */
export const messageIdSchema = z
  .string()
  .min(1, 'message id must not be empty')
  .max(256, 'message id must be at most 256 characters');

export const sendArgsSchema = z.object({
  messageId: messageIdSchema,
  message: userMessageSchema,
  policy: sendPolicySchema.default('enqueue'),
});
export type SendArgs = z.input<typeof sendArgsSchema>;
export type ParsedSendArgs = z.infer<typeof sendArgsSchema>;

/**
 * Where a message stands, as a retried send reports it too:
 * - `started`: its turn (`turnId`) is running or has run;
 * - `queued`: it waits for the turns ahead of it (`ahead` counts them, the running one included);
 * - `steered`: it was handed to the running turn `turnId` (which records it at its next request);
 * - `rejected`: refused by the `reject` policy while `turnId` ran;
 * - `dropped`: still queued when the conversation was closed, so it never ran;
 * - `blocked`: refused by a prompt-submit hook (or its conversation's session-start hook), `reason` saying why.
 */
export const messageReceiptSchema = z.discriminatedUnion('status', [
  z.object({ messageId: z.string(), status: z.literal('started'), turnId: z.string() }),
  z.object({ messageId: z.string(), status: z.literal('queued'), ahead: z.number().int().positive() }),
  z.object({ messageId: z.string(), status: z.literal('steered'), turnId: z.string() }),
  z.object({ messageId: z.string(), status: z.literal('rejected'), turnId: z.string() }),
  z.object({ messageId: z.string(), status: z.literal('dropped') }),
  z.object({ messageId: z.string(), status: z.literal('blocked'), reason: z.string() }),
]);
export type MessageReceipt = z.infer<typeof messageReceiptSchema>;

import { z } from 'zod';
import { type ChatDecision, threadIdSchema } from '../core';

/** A UI message as `useChat` posts it: only what the route reads is checked, the rest is kept. */
const uiMessageSchema = z.looseObject({
  id: z.string().min(1).max(256),
  role: z.enum(['system', 'user', 'assistant']),
  parts: z.array(z.looseObject({ type: z.string() })),
});

/** The body `useChat`'s transport POSTs (`DefaultChatTransport`): the chat's id and all its messages. */
export const chatPostSchema = z.looseObject({
  // A conversation's id: short enough to name its turns.
  id: threadIdSchema,
  messages: z.array(uiMessageSchema).min(1),
  trigger: z.enum(['submit-message', 'regenerate-message']),
  messageId: z.string().optional(),
});
export type ChatPost = z.infer<typeof chatPostSchema>;

/** What a POST asks: a new user message, or decisions on approvals the turn waits for. */
export type ChatAsk =
  | { kind: 'message'; messageId: string; text: string }
  | { kind: 'decisions'; messageId: string; decisions: ChatDecision[] };

const approvalResponded = z.object({
  toolCallId: z.string().min(1),
  state: z.literal('approval-responded'),
  approval: z.object({ id: z.string(), approved: z.boolean(), reason: z.string().optional() }),
});

/**
 * What the post asks, from its last message only: the durable transcript is the authority, so
 * nothing else the client sends (earlier messages, its copy of the answers) is taken.
 */
export function chatAskOf(post: ChatPost): ChatAsk | { refused: string } {
  if (post.trigger === 'regenerate-message')
    return {
      refused:
        'regenerating a response is not supported: a turn and its transcript are durable; send a new message instead',
    };
  const last = post.messages[post.messages.length - 1];
  if (!last) return { refused: 'the post has no message' };
  if (last.role === 'user') {
    const kinds = [...new Set(last.parts.map((part) => part.type))].filter((type) => type !== 'text');
    if (kinds.length > 0)
      return { refused: `a message's parts must be text; this one has ${kinds.join(', ').slice(0, 80)}` };
    const text = last.parts.map((part) => (typeof part.text === 'string' ? part.text : '')).join('');
    if (text.trim() === '') return { refused: 'the message is empty' };
    return { kind: 'message', messageId: last.id, text };
  }
  if (last.role === 'assistant') {
    const decisions = last.parts.flatMap((part): ChatDecision[] => {
      const responded = approvalResponded.safeParse(part);
      if (!responded.success) return [];
      const { toolCallId, approval } = responded.data;
      return [
        { toolCallId, approved: approval.approved, ...(approval.reason ? { reason: approval.reason } : {}) },
      ];
    });
    // The message's id is its turn's (the stream's start said so).
    if (decisions.length > 0) return { kind: 'decisions', messageId: last.id, decisions };
    return { refused: 'the last message is the assistant’s and answers no approval request: nothing to do' };
  }
  return {
    refused: `a post's last message must be the user's or answer approvals, not a ${last.role} message`,
  };
}

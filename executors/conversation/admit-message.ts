import {
  type ConversationHookEvent,
  type ConversationHookOutcome,
  type ConversationState,
  formatIssues,
  type Message,
  normalizeInput,
  type ParsedSendArgs,
  receiptOf,
  sendArgsSchema,
  threadIdSchema,
  type UserMessage,
} from '../../core';
import type { InProcessSendOptions } from './in-process-conversation-options';

/** A send's arguments checked: a valid conversation id and message (throws what is wrong). */
export function parseSend(
  conversationId: string,
  message: string | Message,
  { messageId, policy }: InProcessSendOptions,
): ParsedSendArgs {
  const id = threadIdSchema.safeParse(conversationId);
  if (!id.success) throw new Error(formatIssues(id.error, { root: 'conversationId' }));
  const args = sendArgsSchema.safeParse({
    messageId,
    message: typeof message === 'string' ? normalizeInput(message)[0] : message,
    ...(policy ? { policy } : {}),
  });
  if (!args.success) throw new Error(`invalid message: ${formatIssues(args.error)}`);
  return args.data;
}

/** What a new message's hooks made of it: refused (and whether the session with it), or the message to record. */
export type Admission = { refused: string; closes: boolean } | { message: UserMessage };

/**
 * A message's way past the conversation's hooks before it is recorded: a conversation's first
 * message starts its session (session-start hooks), then every new message meets the prompt-submit
 * hooks, which may refuse or rewrite it. A message seen before, or sent to a closed conversation,
 * meets none (its receipt, or the closed refusal, answers it).
 */
export async function admitMessage({
  state,
  first,
  sent,
  runHooks,
}: {
  state: ConversationState;
  /** Nothing of the conversation is recorded yet: this message starts its session. */
  first: boolean;
  sent: ParsedSendArgs;
  runHooks: (event: ConversationHookEvent) => Promise<ConversationHookOutcome>;
}): Promise<Admission> {
  if (receiptOf(state, sent.messageId) || state.closed) return { message: sent.message };
  const { conversationId } = state;
  if (first) {
    const started = await runHooks({ kind: 'sessionStart', conversationId });
    if (started.kind === 'refuse') return { refused: started.reason, closes: true };
  }
  const submitted = await runHooks({
    kind: 'promptSubmit',
    conversationId,
    messageId: sent.messageId,
    message: sent.message,
    policy: sent.policy,
    ...(state.running ? { runningTurnId: state.running.turnId } : {}),
  });
  if (submitted.kind === 'refuse') return { refused: submitted.reason, closes: false };
  return { message: submitted.message ?? sent.message };
}

import type { SendPolicy } from '../conversation/conversation-schema';
import type { UserMessage } from '../schema/messages';
import type { TurnStatus } from '../schema/turn-status';
import type { HookErrorPolicy } from './turn-hooks';

/** What a prompt-submit hook decides about a message. Returning nothing means allow. */
export type PromptDecision =
  | { action: 'allow' }
  /** The message is refused (the sender gets `reason`); it starts no turn and steers none. */
  | { action: 'block'; reason: string }
  /** The message is recorded as this instead (a redaction, an added instruction). */
  | { action: 'rewrite'; message: UserMessage | string };

export interface PromptSubmitContext {
  conversationId: string;
  messageId: string;
  message: UserMessage;
  policy: SendPolicy;
  /** The turn running when it came, if any. */
  runningTurnId?: string;
}

export interface TurnEndContext {
  conversationId: string;
  turnId: string;
  status: TurnStatus;
  reason?: string;
}

export interface SessionEndContext {
  conversationId: string;
  /** Turns the conversation started. */
  turns: number;
  /** Messages still waiting when it was closed: they never ran. */
  dropped: string[];
}

/**
 * Hooks on a conversation's life (agentyk's session hooks): when it starts (its first message),
 * when a message is submitted (which may be refused or rewritten), when each turn ends, and when it
 * is closed. Each runs once per event, on whichever host keeps the conversation (on Temporal, in a
 * local activity of the conversation's workflow, so a replay does not run it again).
 *
 * `matcher` picks the conversations (by id) it runs for: an id, a RegExp, or a predicate; absent,
 * every one. `onError` (as for tool hooks, default `block`) says what a hook that throws does:
 * `block` refuses the message (prompt submit) or the conversation's first message (session start);
 * a hook on an event that already happened (turn end, session end) cannot undo it, so there `block`
 * counts as `warn`. `allow` goes on as if it had returned nothing; `warn` does so and reports it.
 */
export interface ConversationHooks {
  name?: string;
  matcher?: string | RegExp | ((conversationId: string) => boolean);
  onError?: HookErrorPolicy;
  sessionStart?(ctx: { conversationId: string }): void | Promise<void>;
  promptSubmit?(ctx: PromptSubmitContext): PromptDecision | undefined | Promise<PromptDecision | undefined>;
  turnEnd?(ctx: TurnEndContext): void | Promise<void>;
  sessionEnd?(ctx: SessionEndContext): void | Promise<void>;
}

/** A conversation event as the hook runner takes it (and a Temporal local activity carries it). */
export type ConversationHookEvent =
  | { kind: 'sessionStart'; conversationId: string }
  | ({ kind: 'promptSubmit' } & PromptSubmitContext)
  | ({ kind: 'turnEnd' } & TurnEndContext)
  | ({ kind: 'sessionEnd' } & SessionEndContext);

import type { TurnWatchEvent } from '../watch/turn-watch-event';

/** A decision on a call's approval, as a chat page answered it. */
export interface ChatDecision {
  toolCallId: string;
  approved: boolean;
  reason?: string;
}

/**
 * What a chat front end (the `useChat` route of `durable-turns/ui-stream`) needs of conversations,
 * whichever host runs them (`chatConversations` in `durable-turns/client` on Temporal). A chat is a
 * conversation: its id is the conversation's.
 */
export interface ChatConversations {
  /**
   * Records a user message (a retried one with the same id is the same message) and returns the
   * turn that answers it, once that turn has started: a message queued behind a running turn waits
   * here until `signal` aborts. A message steered into the running turn is answered by that turn.
   * A refusal throws `ConversationRefusedError`.
   */
  send(
    conversationId: string,
    message: { messageId: string; text: string },
    signal: AbortSignal,
  ): Promise<{ turnId: string }>;
  /** The conversation's turn now running; undefined when none runs (or the conversation is unknown). */
  runningTurn(conversationId: string): Promise<string | undefined>;
  /** Its turns so far, oldest first (the running one last). */
  turns(conversationId: string): Promise<string[]>;
  /** Its latest turn, running or ended; undefined before its first. */
  latestTurn(conversationId: string): Promise<string | undefined>;
  /**
   * Records the decision, or says that the call waits for none (decided already, or ended): the
   * turn's own record then stands, whatever the page answered.
   */
  decide(turnId: string, decision: ChatDecision): Promise<'recorded' | 'not-waiting'>;
  /** How far the turn's journal goes now: the sequence number of its last entry (0: none yet). */
  journalEnd(turnId: string): Promise<number>;
  /** The turn's watch from its start, its live text too, until its end or `signal` aborts. */
  watch(turnId: string, signal: AbortSignal): AsyncIterable<TurnWatchEvent>;
}

import type { ConversationState } from '../../core';
import { DurableTurnsError } from '../../core/errors/durable-turns-error';

/**
 * Where an in-process conversation's queue (`ConversationState`) lives between changes; its turns
 * live in the turn journal. Every save names the version it expects, so a host that is not the one
 * driving the conversation (another process on the same file) cannot overwrite it unnoticed.
 */
export interface ConversationStore {
  /** The conversation's state and its version (0 and no state: it does not exist yet). */
  load(conversationId: string): Promise<{ state?: ConversationState; version: number }>;
  /** Saves after `expectedVersion`; returns the new version. @throws ConversationConflictError */
  save(conversationId: string, state: ConversationState, expectedVersion: number): Promise<number>;
  /** Removes it, if still at `expectedVersion`. @throws ConversationConflictError */
  delete(conversationId: string, expectedVersion: number): Promise<void>;
  /** Every conversation it holds, by id. */
  list(): Promise<string[]>;
}

/** A save found a version other than the one it expected: another host changed the conversation. */
export class ConversationConflictError extends DurableTurnsError {
  constructor(conversationId: string, expected: number, found: number) {
    super(
      `conversation ${conversationId} was changed by another host (version ${found}, this host expected ${expected}): ` +
        'one host drives a conversation at a time; resume it on this host only once the other is gone',
      { code: 'conversation-conflict' },
    );
    this.name = 'ConversationConflictError';
  }
}

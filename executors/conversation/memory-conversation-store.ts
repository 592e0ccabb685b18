import type { ConversationState } from '../../core';
import { ConversationConflictError, type ConversationStore } from './conversation-store';

/** Conversations in this process's memory: the default. Copies in and out, as a real store would. */
export class MemoryConversationStore implements ConversationStore {
  private readonly held = new Map<string, { state: ConversationState; version: number }>();

  async load(conversationId: string): Promise<{ state?: ConversationState; version: number }> {
    const found = this.held.get(conversationId);
    return found ? { state: structuredClone(found.state), version: found.version } : { version: 0 };
  }

  async save(conversationId: string, state: ConversationState, expectedVersion: number): Promise<number> {
    const version = this.held.get(conversationId)?.version ?? 0;
    if (version !== expectedVersion)
      throw new ConversationConflictError(conversationId, expectedVersion, version);
    this.held.set(conversationId, { state: structuredClone(state), version: version + 1 });
    return version + 1;
  }

  async delete(conversationId: string, expectedVersion: number): Promise<void> {
    const version = this.held.get(conversationId)?.version ?? 0;
    if (version !== expectedVersion)
      throw new ConversationConflictError(conversationId, expectedVersion, version);
    this.held.delete(conversationId);
  }

  async list(): Promise<string[]> {
    return [...this.held.keys()].sort();
  }
}

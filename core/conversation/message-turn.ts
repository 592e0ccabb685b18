import { ConversationRefusedError, type ConversationState, unknownConversation } from './conversation-state';

/**
 * The turn that took a message, once one has: a queued message waits behind the running turn, so
 * this looks at the conversation's receipts (backing off from 50 ms to 1 s) until the message's
 * turn started, it was dropped or refused, or `signal` aborts. `pause` waits (and returns early
 * when `signal` aborts).
 */
export async function turnOfMessage({
  messageId,
  look,
  pause,
  signal,
}: {
  messageId: string;
  look: () => Promise<ConversationState | undefined>;
  pause: (ms: number) => Promise<void>;
  signal: AbortSignal;
}): Promise<{ turnId: string }> {
  for (let waitMs = 50; ; waitMs = Math.min(waitMs * 2, 1_000)) {
    const state = await look();
    // Deleted while the message waited.
    if (!state)
      throw unknownConversation('of this chat', `it is gone; message ${messageId} was not answered`);
    const record = state.receipts.find((r) => r.messageId === messageId);
    if (record?.turnId !== undefined && (record.status === 'started' || record.status === 'steered'))
      return { turnId: record.turnId };
    if (record?.status === 'dropped' || record?.status === 'rejected' || record?.status === 'blocked')
      throw new ConversationRefusedError(
        `message ${messageId} was ${record.status} before a turn took it${record.reason ? `: ${record.reason}` : ''}`,
        record.status === 'blocked'
          ? 'message-blocked'
          : record.status === 'dropped'
            ? 'conversation-closed'
            : 'conversation-busy',
      );
    // Its receipt is no longer kept (a thousand messages came after it): it was answered long ago.
    if (
      !record &&
      state.received > 0 &&
      state.queue.every((m) => m.messageId !== messageId) &&
      state.next.every((m) => m.messageId !== messageId)
    )
      throw new Error(`message ${messageId} is neither waiting nor recorded any more`);
    if (signal.aborted) throw new Error(`gave up waiting for message ${messageId}'s turn to start`);
    await pause(waitMs);
  }
}

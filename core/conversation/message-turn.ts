import type { ConversationState } from './conversation-state';

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
    const record = (await look())?.receipts.find((r) => r.messageId === messageId);
    if (record?.turnId !== undefined && (record.status === 'started' || record.status === 'steered'))
      return { turnId: record.turnId };
    if (record?.status === 'dropped' || record?.status === 'rejected' || record?.status === 'blocked')
      throw new Error(`message ${messageId} was ${record.status} before a turn took it`);
    if (signal.aborted) throw new Error(`gave up waiting for message ${messageId}'s turn to start`);
    await pause(waitMs);
  }
}

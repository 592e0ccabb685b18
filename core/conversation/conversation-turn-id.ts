/** Turn `n` (from 1) of a conversation: its id, as every host names it. */
export function conversationTurnId(conversationId: string, n: number): string {
  return `${conversationId}#${n}`;
}

/** The ids of a conversation's first `count` turns, oldest first. */
export function conversationTurnIds(conversationId: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => conversationTurnId(conversationId, i + 1));
}

/** Turn `n` (from 1) of a conversation: its id, as every host names it. */
export function conversationTurnId(conversationId: string, n: number): string {
  return `${conversationId}#${n}`;
}

/** The ids of a conversation's first `count` turns, oldest first. */
export function conversationTurnIds(conversationId: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => conversationTurnId(conversationId, i + 1));
}

/**
 * The key of a conversation's sessions with tools that keep state per session (`ToolContext.session`):
 * the same for all its turns on every host, and another for a conversation that takes up a deleted
 * one's id (its incarnation; a conversation begun before incarnations has none).
 */
export function conversationSessionKey({
  conversationId,
  incarnation,
}: {
  conversationId: string;
  incarnation?: string | undefined;
}): string {
  return incarnation ? `${conversationId}#${incarnation}` : conversationId;
}

/** Which turn of the conversation `turnId` is (from 1); undefined for an id not of its turns. */
export function conversationTurnNumber(conversationId: string, turnId: string): number | undefined {
  const prefix = conversationTurnId(conversationId, 0).slice(0, -1);
  if (!turnId.startsWith(prefix)) return undefined;
  const n = turnId.slice(prefix.length);
  return /^[1-9]\d{0,9}$/.test(n) ? Number(n) : undefined;
}

import type { Message } from '../schema/messages';

/**
 * The messages of a conversation's earlier turns, which a turn's model requests send before its
 * own: read from each ended turn (on Temporal its result, in process its journal), never copied into
 * the asking turn's history or journal. A host keeps them: an ended turn never changes, so each is
 * read once per worker (or in-process host), however many requests follow. Bounded by turns held.
 */
export class EarlierTurns {
  private readonly held = new Map<string, { messages: Message[]; chars: number }>();
  private chars = 0;

  /** Bounded by turns and by size (characters of their JSON), like the worker's `TranscriptCache`. */
  constructor(
    private readonly maxTurns = 2_000,
    private readonly maxChars = 256 * 1024 * 1024,
  ) {}

  async before({
    conversationId,
    turnNumber,
    read,
  }: {
    conversationId: string;
    turnNumber: number;
    read: (turnId: string) => Promise<Message[]>;
  }): Promise<Message[]> {
    const messages: Message[] = [];
    for (let n = 1; n < turnNumber; n++) {
      const turnId = `${conversationId}#${n}`;
      let turn = this.held.get(turnId)?.messages;
      if (!turn) {
        turn = await read(turnId);
        this.hold(turnId, turn);
      }
      messages.push(...turn);
    }
    return messages;
  }

  /** How many turns it holds, and their size in characters of JSON. */
  get size(): { turns: number; chars: number } {
    return { turns: this.held.size, chars: this.chars };
  }

  private hold(turnId: string, messages: Message[]): void {
    const chars = JSON.stringify(messages).length;
    this.held.set(turnId, { messages, chars });
    this.chars += chars;
    // The oldest first; the turn just read stays even when it alone is over the bound.
    for (const [id, turn] of this.held) {
      if (this.held.size <= 1 || (this.held.size <= this.maxTurns && this.chars <= this.maxChars)) break;
      this.held.delete(id);
      this.chars -= turn.chars;
    }
  }
}

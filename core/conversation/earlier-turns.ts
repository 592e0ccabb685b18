import type { Message } from '../schema/messages';
import type { TurnContext } from './turn-messages';

/**
 * The messages of a conversation's earlier turns, which a turn's model requests send before its
 * own: read from each ended turn (on Temporal its result, in process its journal), never copied into
 * the asking turn's history or journal. A host keeps them: an ended turn never changes, so each is
 * read once per worker (or in-process host), however many requests follow. Bounded by turns held.
 * A turn that compacted its context stands for every turn before it (its summary covers them): they
 * are not read at all.
 */
export class EarlierTurns {
  private readonly held = new Map<string, TurnContext & { chars: number }>();
  private chars = 0;

  /** Bounded by turns and by size (characters of their JSON), like the worker's `TranscriptCache`. */
  constructor(
    private readonly maxTurns = 2_000,
    private readonly maxChars = 256 * 1024 * 1024,
  ) {}

  async before({
    conversationId,
    turnNumber,
    incarnation = '',
    read,
  }: {
    conversationId: string;
    turnNumber: number;
    /** Which conversation of this id (see `ConversationState.incarnation`): a deleted one's turns are not its. */
    incarnation?: string;
    read: (turnId: string) => Promise<TurnContext>;
  }): Promise<Message[]> {
    const turns: Message[][] = [];
    // From the newest back, to the first that replaces those before it.
    for (let n = turnNumber - 1; n >= 1; n--) {
      const turnId = `${conversationId}#${n}`;
      const key = `${incarnation}\n${turnId}`;
      let turn: TurnContext | undefined = this.held.get(key);
      if (!turn) {
        turn = await read(turnId);
        this.hold(key, turn);
      }
      turns.push(turn.messages);
      if (turn.replacesEarlier) break;
    }
    return turns.reverse().flat();
  }

  /** How many turns it holds, and their size in characters of JSON. */
  get size(): { turns: number; chars: number } {
    return { turns: this.held.size, chars: this.chars };
  }

  private hold(key: string, turn: TurnContext): void {
    const chars = JSON.stringify(turn.messages).length;
    this.held.set(key, { ...turn, chars });
    this.chars += chars;
    // The oldest first; the turn just read stays even when it alone is over the bound.
    for (const [id, turn] of this.held) {
      if (this.held.size <= 1 || (this.held.size <= this.maxTurns && this.chars <= this.maxChars)) break;
      this.held.delete(id);
      this.chars -= turn.chars;
    }
  }
}

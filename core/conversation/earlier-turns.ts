import type { Message } from '../schema/messages';
import type { ConversationOrigin } from './conversation-origin';
import { conversationTurnId } from './conversation-turn-id';
import { SizeBoundedMap } from './size-bounded-map';
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
  private readonly held: SizeBoundedMap<TurnContext>;

  /** Bounded by turns and by size (characters of their messages' JSON), like the worker's `TranscriptCache`. */
  constructor(maxTurns = 2_000, maxChars = 256 * 1024 * 1024) {
    this.held = new SizeBoundedMap(maxTurns, maxChars, (turn) => JSON.stringify(turn.messages).length);
  }

  async before({
    conversationId,
    turnNumber,
    incarnation = '',
    origin = [],
    read,
    checkOrigin,
  }: {
    conversationId: string;
    turnNumber: number;
    /** Which conversation of this id (see `ConversationState.incarnation`): a deleted one's turns are not its. */
    incarnation?: string;
    /** A branch: the turns of the conversations it came from, which come before its own. */
    origin?: ConversationOrigin;
    read: (turnId: string) => Promise<TurnContext>;
    /**
     * Before a turn of a conversation a branch came from is first read here: throws if that
     * conversation is not the one the branch came from any more (deleted, or its id begun again).
     */
    checkOrigin?: (origin: ConversationOrigin[number]) => Promise<void>;
  }): Promise<Message[]> {
    const turns: Message[][] = [];
    // From the newest back, to the first that replaces those before it: the conversation's own
    // turns, then those of each conversation it branched from.
    const spans: {
      conversationId: string;
      incarnation: string;
      turns: number;
      of?: ConversationOrigin[number];
    }[] = [
      { conversationId, incarnation, turns: turnNumber - 1 },
      ...origin.map((o) => ({ ...o, incarnation: o.incarnation ?? '', of: o })),
    ];
    for (const span of spans) {
      let checked = false;
      for (let n = span.turns; n >= 1; n--) {
        const turnId = conversationTurnId(span.conversationId, n);
        const key = `${span.incarnation}\n${turnId}`;
        let turn: TurnContext | undefined = this.held.get(key);
        if (!turn) {
          // Held turns were read while it was that conversation; one read now must still be its.
          if (span.of && !checked) await checkOrigin?.(span.of);
          checked = true;
          turn = await read(turnId);
          this.held.set(key, turn);
        }
        turns.push(turn.messages);
        if (turn.replacesEarlier) return turns.reverse().flat();
      }
    }
    return turns.reverse().flat();
  }

  /** How many turns it holds, and their size in characters of JSON. */
  get size(): { turns: number; chars: number } {
    const { entries, size } = this.held.size;
    return { turns: entries, chars: size };
  }
}

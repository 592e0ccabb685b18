import { pause } from '../../client/abortable-pause';
import type { ConversationClient } from '../../client/conversation-client';
import type { Colors } from '../output';
import type { CommandContext } from '../render/answer-commands';
import { applyTurnEvent, emptyTurnDisplay } from '../render/turn-display';
import { chatLines } from './chat-lines';

/**
 * Shows a conversation's turns one after another as they run, across turn boundaries
 * (`ConversationClient.watch`), until `signal` aborts or the conversation is closed and done: from the
 * running turn (or the next one) on. A turn begun by any sender is shown.
 */
export async function followConversation({
  conversations,
  conversationId,
  print,
  colors,
  context,
  signal,
  onTurnShown,
}: {
  conversations: ConversationClient;
  conversationId: string;
  print: (lines: string[]) => void;
  colors: Colors;
  context: CommandContext;
  signal: AbortSignal;
  /** Told each turn's number once it has been shown to its end. */
  onTurnShown?: (n: number) => void;
}): Promise<void> {
  let display = emptyTurnDisplay({ turnId: '' });
  let at: { turnNumber: number; seq: number } | undefined;
  while (!signal.aborted) {
    try {
      for await (const { turnId, turnNumber, event } of conversations.watch(conversationId, {
        live: false,
        signal,
        ...(at ? { fromTurn: at.turnNumber } : {}),
      })) {
        if (event.kind !== 'entry') continue;
        // After a lost connection the watch starts that turn again: what was shown is not shown twice.
        if (at?.turnNumber === turnNumber && event.seq <= at.seq) continue;
        if (display.turnId !== turnId) display = emptyTurnDisplay({ turnId });
        const shown = { kind: 'entry' as const, seq: event.seq, entry: event.entry };
        applyTurnEvent({ display, event: shown });
        print(chatLines({ display, event: shown, colors, context }));
        at = { turnNumber, seq: event.seq };
        if (event.entry.type === 'turn.finished') onTurnShown?.(turnNumber);
      }
      return;
    } catch {
      // The server did not answer (a restart, a network blip): look again in a moment.
      await pause({ ms: 1_000, signal });
    }
  }
}

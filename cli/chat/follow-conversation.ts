import type { ConversationClient } from '../../client/conversation-client';
import type { Colors } from '../output';
import type { CommandContext } from '../render/answer-commands';
import { applyTurnEvent, emptyTurnDisplay } from '../render/turn-display';
import { chatLines } from './chat-lines';

const pollMs = 200;
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/**
 * Shows a conversation's turns one after another as they run, across turn boundaries, until
 * `signal` aborts: from the running turn (or the next one) on. A turn begun by any sender is shown.
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
  const turnCount = async () => {
    // Until its first message, the conversation has no workflow to ask.
    const state = await conversations.state(conversationId).catch(() => undefined);
    return state
      ? { count: state.turnCount, running: state.running !== undefined }
      : { count: 0, running: false };
  };
  const first = await turnCount();
  let n = first.running ? first.count : first.count + 1;
  while (!signal.aborted) {
    if ((await turnCount()).count < n) {
      await sleep(pollMs, signal);
      continue;
    }
    const handle = conversations.turn(conversationId, n);
    const display = emptyTurnDisplay({ turnId: handle.turnId });
    for await (const event of handle.watch({ live: false, signal })) {
      const shown = { kind: 'entry' as const, seq: event.seq, entry: event.entry };
      applyTurnEvent({ display, event: shown });
      print(chatLines({ display, event: shown, colors, context }));
    }
    if (!signal.aborted) onTurnShown?.(n);
    n += 1;
  }
}

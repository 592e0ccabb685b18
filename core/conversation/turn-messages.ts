import { messagesFromEvents, withForkedEvents } from '../engine/messages-from-events';
import { requestMessages } from '../engine/request-context';
import type { TurnResult } from '../engine/turn-outcome';
import type { TranscriptEvent } from '../schema/journal-entry';
import type { Message } from '../schema/messages';

/** The engine's notices by call id (loop warnings): they are in the outputs, not in the events. */
export function noticesOf(outputs: TurnResult['outputs']): Record<string, string> {
  const notices: Record<string, string> = {};
  for (const output of outputs) if (output.notice) notices[output.toolCallId] = output.notice;
  return notices;
}

/**
 * An ended turn's messages, whole: its input first, then what it added, rebuilt from its transcript
 * events with the engine's notices put back (as the Temporal host rebuilds them from a packed
 * result). The transcript as it happened, compacted or not: for audit and the UI.
 */
export function turnMessages({ events, outputs }: Pick<TurnResult, 'events' | 'outputs'>): Message[] {
  return messagesFromEvents(events, noticesOf(outputs));
}

/** What an ended turn contributes to a later turn's requests (see `EarlierTurns`). */
export interface TurnContext {
  messages: Message[];
  /** It compacted its context: its summary stands for every turn before it, which are not sent. */
  replacesEarlier: boolean;
}

/**
 * An ended turn as the requests after it send it: whole, or — once it compacted — as its last
 * request would have sent it (the summary, its input, and what came from the compaction point on).
 */
export function turnContext(
  events: readonly TranscriptEvent[],
  notices: Readonly<Record<string, string>> = {},
): TurnContext {
  const messages = messagesFromEvents(events, notices);
  let compacted: TranscriptEvent | undefined;
  // A fork's record counts as its own: a compaction in it is the fork's too (its messages are read so).
  for (const event of withForkedEvents(events)) if (event.type === 'context.compacted') compacted = event;
  const started = events[0];
  if (compacted?.type !== 'context.compacted' || started?.type !== 'turn.started')
    return { messages, replacesEarlier: false };
  const { summary, through } = compacted;
  return {
    messages: requestMessages({
      messages,
      earlier: [],
      compaction: { summary, through, inputLength: started.input.length },
    }),
    replacesEarlier: true,
  };
}

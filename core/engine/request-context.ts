import type { Message, UserMessage } from '../schema/messages';

/** What precedes a compaction's summary in the user message that carries it. */
export const summaryPreamble =
  'Summary of the conversation before this point (it stands in for the messages it covers):\n\n';

/** The latest compaction as a request applies it: see `context.compacted`. */
export interface AppliedCompaction {
  summary: string;
  /** The turn's messages from here on are sent as they are. */
  through: number;
  /** The turn's input (its first messages) is sent as it is too. */
  inputLength: number;
}

export function summaryMessage(summary: string): UserMessage {
  return { role: 'user', content: `${summaryPreamble}${summary}` };
}

/**
 * What a model request sends, as every host builds it: the conversation's earlier turns, then the
 * turn's messages — or, once compacted, the summary in place of the earlier turns and of the turn's
 * messages between its input and `through`. A compaction never splits a call from its output: its
 * `through` is an assistant message, sent with everything after it.
 */
export function requestMessages({
  messages,
  earlier,
  compaction,
}: {
  messages: readonly Message[];
  earlier: readonly Message[];
  compaction?: AppliedCompaction | undefined;
}): Message[] {
  if (!compaction) return earlier.length === 0 ? [...messages] : [...earlier, ...messages];
  return [
    summaryMessage(compaction.summary),
    ...messages.slice(0, compaction.inputLength),
    ...messages.slice(compaction.through),
  ];
}

/**
 * Where a compaction asked for now ends: at the turn's last assistant message (the one being
 * answered, kept whole with its calls' outputs), or at the end of its input before any.
 */
export function compactionPoint(messages: readonly Message[], inputLength: number): number {
  for (let i = messages.length - 1; i >= inputLength; i--) if (messages[i]?.role === 'assistant') return i;
  return inputLength;
}

/**
 * The summary request of a `compact` operation: what a model request would send up to the point
 * being compacted (the earlier turns too, or the previous summary), then the instruction. None when
 * there is nothing before the message being answered to summarise: the context cannot shrink.
 */
export function compactionRequestMessages({
  op,
  earlier,
}: {
  op: {
    messages: readonly Message[];
    through: number;
    inputLength: number;
    previous?: AppliedCompaction;
    instruction: string;
  };
  earlier: readonly Message[];
}): Message[] | undefined {
  const covers = earlier.length > 0 || op.previous !== undefined || op.through > op.inputLength;
  if (!covers) return undefined;
  const upTo = op.messages.slice(0, op.through);
  return [
    ...requestMessages({ messages: upTo, earlier, compaction: op.previous }),
    { role: 'user', content: op.instruction },
  ];
}

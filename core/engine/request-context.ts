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
 * messages between its input and `through` (the input's system messages first, where providers want
 * them). A compaction never splits a call from its output: its `through` is an assistant message,
 * sent with everything after it.
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
  const input = messages.slice(0, compaction.inputLength);
  return [
    ...input.filter((m) => m.role === 'system'),
    summaryMessage(compaction.summary),
    ...input.filter((m) => m.role !== 'system'),
    ...messages.slice(compaction.through),
  ];
}

/**
 * A request as `requestMessages` builds it, with a stateful continuation's `fromMessage` moved to
 * where the turn's messages after the receipt now stand in it (after the earlier turns, or after the
 * summary and the input), so a model that cannot continue by id still gets the whole context.
 */
export function requestContext({
  messages,
  earlier,
  compaction,
  continuation,
}: {
  messages: readonly Message[];
  earlier: readonly Message[];
  compaction?: AppliedCompaction | undefined;
  continuation?: { previousResponseId: string; fromMessage: number } | undefined;
}): { messages: Message[]; continuation?: { previousResponseId: string; fromMessage: number } } {
  const built = requestMessages({ messages, earlier, compaction });
  if (!continuation) return { messages: built };
  const offset = compaction ? 1 + compaction.inputLength - compaction.through : earlier.length;
  return {
    messages: built,
    continuation: { ...continuation, fromMessage: continuation.fromMessage + offset },
  };
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
 * being compacted (the earlier turns too, or the previous summary), as plain text — calls and their
 * outputs written out, reasoning left out — then the instruction. Plain, because it goes with no
 * tools, and providers refuse tool calls and results in a request that defines none (Anthropic,
 * Bedrock). None when there is nothing before the message being answered to summarise.
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
    ...requestMessages({ messages: upTo, earlier, compaction: op.previous }).map(asPlainText),
    { role: 'user', content: op.instruction },
  ];
}

/** A message as text a model reads without tools: assistant calls and tool results written out. */
function asPlainText(message: Message): Message {
  if (message.role === 'system' || message.role === 'user') return message;
  if (message.role === 'assistant') {
    const text = message.content
      .flatMap((part) => {
        if (part.type === 'text') return [part.text];
        if (part.type === 'tool-call')
          return [`[called ${part.toolName} with ${JSON.stringify(part.input)}]`];
        return [];
      })
      .join('\n');
    return { role: 'assistant', content: [{ type: 'text', text: text === '' ? '[no text]' : text }] };
  }
  const results = message.content.map(({ toolName, toolCallId, output }) => {
    const content = typeof output.content === 'string' ? output.content : JSON.stringify(output.content);
    return `[${toolName} (${toolCallId}) ${output.status}: ${content}]`;
  });
  return { role: 'user', content: results.join('\n') };
}

import type { TranscriptEvent } from '../schema/journal-entry';
import type { Message, ToolResultPart } from '../schema/messages';
import { deliveryPart } from './background-calls';

/**
 * Rebuilds a turn's messages from its transcript events: the input, each response, after each
 * response whose calls are all recorded the tool message with their outputs in batch order, and a
 * user message for each delivery of background outputs.
 * Engine notices (loop warnings) are not in the events; `notices` puts them back by call id.
 * Lets a carried turn hold each output once (in its events) instead of twice.
 */
export function messagesFromEvents(
  events: readonly TranscriptEvent[],
  notices: Readonly<Record<string, string>> = {},
): Message[] {
  const messages: Message[] = [];
  let open:
    | {
        calls: { toolCallId: string; toolName: string; policy?: { background?: boolean } }[];
        results: ToolResultPart[];
      }
    | undefined;
  for (const event of events) {
    if (event.type === 'turn.started') messages.push(...event.input);
    if (event.type === 'model.responded') {
      messages.push(event.message);
      open = event.calls.length > 0 ? { calls: event.calls, results: [] } : undefined;
    }
    if (event.type === 'tool.completed' && open) {
      const call = open.calls[open.results.length];
      if (!call || call.toolCallId !== event.toolCallId)
        throw new Error(`events record ${event.toolCallId} out of batch order`);
      // A background call's notice belongs to its delivery: a call with one was set aside.
      const notice =
        !call.policy?.background && Object.hasOwn(notices, event.toolCallId)
          ? notices[event.toolCallId]
          : undefined;
      open.results.push({
        type: 'tool-result',
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: notice ? { ...event.output, notice } : event.output,
      });
      if (open.results.length === open.calls.length) {
        messages.push({ role: 'tool', content: open.results });
        open = undefined;
      }
    }
    if (event.type === 'background.delivered') {
      messages.push({
        role: 'user',
        content: event.deliveries.map((d) => {
          const notice = Object.hasOwn(notices, d.toolCallId) ? notices[d.toolCallId] : undefined;
          return deliveryPart(notice ? { ...d, output: { ...d.output, notice } } : d);
        }),
      });
    }
  }
  return messages;
}

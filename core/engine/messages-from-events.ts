import type { TranscriptEvent } from '../schema/journal-entry';
import type { Message, ToolResultPart } from '../schema/messages';
import type { ToolOutput } from '../schema/tool-output';
import { deliveryPart } from './background-calls';
import type { CallOutcome } from './turn-outcome';

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

/**
 * A turn's tool outputs from its transcript events, one per call in the order their results were
 * recorded; a background call's is the output delivered for it (in its placeholder's place).
 */
export function outputsFromEvents(
  events: readonly TranscriptEvent[],
  notices: Readonly<Record<string, string>> = {},
): CallOutcome[] {
  const outputs: CallOutcome[] = [];
  const at = new Map<string, number>();
  const calls = new Map<string, { toolName: string; policy?: { background?: boolean } }>();
  const withNotice = (toolCallId: string, output: ToolOutput): ToolOutput => {
    const notice = Object.hasOwn(notices, toolCallId) ? notices[toolCallId] : undefined;
    return notice ? { ...output, notice } : output;
  };
  for (const event of events) {
    if (event.type === 'model.responded') for (const call of event.calls) calls.set(call.toolCallId, call);
    if (event.type === 'tool.completed') {
      at.set(event.toolCallId, outputs.length);
      const call = calls.get(event.toolCallId);
      // A background call's notice belongs to its delivered output.
      const output = call?.policy?.background ? event.output : withNotice(event.toolCallId, event.output);
      outputs.push({ toolCallId: event.toolCallId, name: call?.toolName ?? '', ...output });
    }
    if (event.type === 'background.delivered')
      for (const d of event.deliveries) {
        const outcome = { toolCallId: d.toolCallId, name: d.toolName, ...withNotice(d.toolCallId, d.output) };
        const index = at.get(d.toolCallId);
        if (index === undefined) outputs.push(outcome);
        else outputs[index] = outcome;
      }
  }
  return outputs;
}

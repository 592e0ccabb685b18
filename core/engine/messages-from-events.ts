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
  events = withForkedEvents(events);
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
      open.results.push({
        type: 'tool-result',
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: slotOutput(call, event.output, notices),
      });
      if (open.results.length === open.calls.length) {
        messages.push({ role: 'tool', content: open.results });
        open = undefined;
      }
    }
    if (event.type === 'user.steered') for (const { message } of event.messages) messages.push(message);
    if (event.type === 'output.rejected') messages.push(event.message);
    if (event.type === 'background.delivered') {
      messages.push({
        role: 'user',
        content: event.deliveries.map((d) =>
          deliveryPart({ ...d, output: withNotice(d.toolCallId, d.output, notices) }),
        ),
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
  events = withForkedEvents(events);
  const at = new Map<string, number>();
  const calls = new Map<string, { toolName: string; policy?: { background?: boolean } }>();
  for (const event of events) {
    if (event.type === 'model.responded') for (const call of event.calls) calls.set(call.toolCallId, call);
    if (event.type === 'tool.completed') {
      at.set(event.toolCallId, outputs.length);
      const call = calls.get(event.toolCallId);
      const output = slotOutput({ toolCallId: event.toolCallId, ...call }, event.output, notices);
      outputs.push({ toolCallId: event.toolCallId, name: call?.toolName ?? '', ...output });
    }
    if (event.type === 'background.delivered')
      for (const d of event.deliveries) {
        const outcome = {
          toolCallId: d.toolCallId,
          name: d.toolName,
          ...withNotice(d.toolCallId, d.output, notices),
        };
        const index = at.get(d.toolCallId);
        if (index === undefined) outputs.push(outcome);
        else outputs[index] = outcome;
      }
  }
  return outputs;
}

function withNotice(
  toolCallId: string,
  output: ToolOutput,
  notices: Readonly<Record<string, string>>,
): ToolOutput {
  const notice = Object.hasOwn(notices, toolCallId) ? notices[toolCallId] : undefined;
  return notice ? { ...output, notice } : output;
}

/** A call's result in its batch; a background call's notice belongs to its delivery, not here. */
function slotOutput(
  call: { toolCallId: string; policy?: { background?: boolean } },
  output: ToolOutput,
  notices: Readonly<Record<string, string>>,
): ToolOutput {
  return call.policy?.background ? output : withNotice(call.toolCallId, output, notices);
}

/** The message ids of the steers a turn took (its `user.steered` events), in order. */
export function steeredMessageIds(events: readonly TranscriptEvent[]): string[] {
  return events.flatMap((e) => (e.type === 'user.steered' ? e.messages.map((m) => m.messageId) : []));
}

/** A fork's events with the record it began from in its `turn.forked` event's place (see `forkPrefix`). */
export function withForkedEvents(events: readonly TranscriptEvent[]): readonly TranscriptEvent[] {
  return events.some((e) => e.type === 'turn.forked')
    ? events.flatMap((e) => (e.type === 'turn.forked' ? e.events : [e]))
    : events;
}

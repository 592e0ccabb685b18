import type { Provider } from './corpus';
import { type Json, record, records, text } from './json-fields';
import type { RecordedCall } from './recorded-response';
import { replayOutput } from './recording-tools';
import { modelOutputRuns } from './responses-carried-back';

/**
 * The follow-up request pairs each call of response `step` (1-based) with its result the way the
 * provider requires, with the recorded ids and arguments and the output the tool gave.
 */
export function expectCallsPaired(
  provider: Provider,
  followUp: unknown,
  step: number,
  calls: readonly RecordedCall[],
): void {
  pairingRules[provider](followUp, step, calls);
}

type PairingRule = (followUp: unknown, step: number, calls: readonly RecordedCall[]) => void;

/** The n-th (1-based) assistant message of a request's `messages`, and where it is. */
export function assistantMessage(followUp: unknown, step: number): { messages: Json[]; at: number } {
  const messages = records(record(followUp).messages);
  let seen = 0;
  const at = messages.findIndex((message) => message.role === 'assistant' && ++seen === step);
  if (at < 0) throw new Error(`the follow-up request carries no assistant message #${step}`);
  return { messages, at };
}

/** Chat completions: the assistant message lists the calls in `tool_calls`; a `tool` message answers each, right after it. */
function expectChatCallsPaired(followUp: unknown, step: number, calls: readonly RecordedCall[]): void {
  const { messages, at } = assistantMessage(followUp, step);
  expect(
    records(messages[at]?.tool_calls).map((call) => ({
      id: call.id,
      type: call.type,
      name: record(call.function).name,
      arguments: JSON.parse(text(record(call.function).arguments)),
    })),
  ).toEqual(
    calls.map((call) => ({
      id: call.id,
      type: 'function',
      name: call.name,
      arguments: JSON.parse(call.arguments),
    })),
  );
  expect(messages.slice(at + 1, at + 1 + calls.length).map(toolAnswer)).toEqual(
    calls.map((call) => ({ role: 'tool', tool_call_id: call.id, carriesOutput: true })),
  );
}

function toolAnswer(message: Json) {
  return {
    role: message.role,
    tool_call_id: message.tool_call_id,
    carriesOutput: JSON.stringify(message.content ?? '').includes(replayOutput(text(message.tool_call_id))),
  };
}

/** Responses: a `function_call` item per call in the response's items, and one `function_call_output` after it. */
function expectResponsesCallsPaired(followUp: unknown, step: number, calls: readonly RecordedCall[]): void {
  const input = records(record(followUp).input);
  const run = modelOutputRuns(input)[step - 1] ?? [];
  expect(
    run
      .filter((item) => item.type === 'function_call')
      .map((item) => ({
        call_id: item.call_id,
        name: item.name,
        arguments: JSON.parse(text(item.arguments)),
      })),
  ).toEqual(
    calls.map((call) => ({ call_id: call.id, name: call.name, arguments: JSON.parse(call.arguments) })),
  );
  const answers = calls.map((call) => {
    const callAt = input.findIndex((item) => item.type === 'function_call' && item.call_id === call.id);
    const outputs = input.flatMap((item, index) =>
      item.type === 'function_call_output' && item.call_id === call.id ? [{ item, index }] : [],
    );
    return {
      call_id: call.id,
      outputs: outputs.length,
      afterItsCall: outputs.every(({ index }) => index > callAt),
      carriesOutput: outputs.every(({ item }) => JSON.stringify(item.output).includes(replayOutput(call.id))),
    };
  });
  expect(answers).toEqual(
    calls.map((call) => ({ call_id: call.id, outputs: 1, afterItsCall: true, carriesOutput: true })),
  );
}

/**
 * Anthropic: `tool_use` blocks in the assistant message, then a user message that opens with a
 * `tool_result` block per call. A server tool call goes back with its result or not at all.
 */
function expectAnthropicCallsPaired(followUp: unknown, step: number, calls: readonly RecordedCall[]): void {
  const { messages, at } = assistantMessage(followUp, step);
  const blocks = records(messages[at]?.content);
  expect(
    blocks
      .filter((block) => block.type === 'tool_use')
      .map((block) => ({ id: block.id, name: block.name, input: block.input })),
  ).toEqual(calls.map((call) => ({ id: call.id, name: call.name, input: JSON.parse(call.arguments) })));
  const serverUses = blocks
    .filter((block) => block.type === 'server_tool_use')
    .map((block) => text(block.id));
  const serverResults = blocks.map((block) => text(block.tool_use_id));
  expect(serverUses.filter((id) => !serverResults.includes(id))).toEqual([]);
  const next = messages[at + 1];
  expect(next?.role).toBe('user');
  expect(
    records(next?.content)
      .slice(0, calls.length)
      .map((block) => ({
        type: block.type,
        tool_use_id: block.tool_use_id,
        carriesOutput: JSON.stringify(block.content ?? '').includes(replayOutput(text(block.tool_use_id))),
      })),
  ).toEqual(calls.map((call) => ({ type: 'tool_result', tool_use_id: call.id, carriesOutput: true })));
}

const pairingRules: Record<Provider, PairingRule> = {
  'openai-chat': expectChatCallsPaired,
  'openai-compatible': expectChatCallsPaired,
  'openai-responses': expectResponsesCallsPaired,
  anthropic: expectAnthropicCallsPaired,
};

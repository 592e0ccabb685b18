import type { Provider } from './corpus';
import { type Json, record, records } from './json-fields';

/**
 * Our follow-up request carries the previous response back as the real client's recorded request
 * did (the provider accepted that one): the same assistant blocks or input items in the same
 * order, reasoning exactly as sent back then. Tool results and instructions are ours and differ.
 */
export function expectRequestAsRecorded(provider: Provider, ours: unknown, recorded: unknown): void {
  if (provider === 'anthropic') {
    expect(assistantBlocks(ours)).toEqual(assistantBlocks(recorded));
    return;
  }
  if (provider === 'openai-responses') {
    expect(modelItems(ours)).toEqual(modelItems(recorded));
    return;
  }
  throw new Error(`no recorded-request comparison for ${provider}`);
}

/** Each assistant message's blocks: thinking as sent, tool_use without optional extras. */
function assistantBlocks(body: unknown): Json[][] {
  return records(record(body).messages)
    .filter((message) => message.role === 'assistant')
    .map((message) =>
      records(message.content).map((block) =>
        block.type === 'tool_use'
          ? { type: block.type, id: block.id, name: block.name, input: block.input }
          : block,
      ),
    );
}

/** The items the model produced, as sent back: reasoning whole, calls by call id, name and arguments. */
function modelItems(body: unknown): Json[] {
  return records(record(body).input).flatMap((item) => {
    if (item.type === 'reasoning') return [item];
    if (item.type === 'function_call')
      return [{ type: item.type, call_id: item.call_id, name: item.name, arguments: item.arguments }];
    return [];
  });
}

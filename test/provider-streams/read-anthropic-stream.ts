import { finishReasonIn } from './finish-reasons';
import { count, type Json, record, text } from './json-fields';
import { emptyResponse, isWholeJson, type RecordedResponse } from './recorded-response';
import { jsonData, readServerSentEvents } from './server-sent-events';

/** An open content block of a Messages stream, by its index. */
type Block =
  | { type: 'text' }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; json: string; startInput: unknown; stopped: boolean }
  | { type: 'server_tool_use'; id: string }
  | { type: 'other' };

/**
 * Reads an Anthropic Messages stream (`message_start`, content blocks, `message_delta`,
 * `message_stop`, or `error`). Usage is what the message cost: input counts cached and cache-written
 * tokens too (Anthropic reports them apart), output is the last cumulative count.
 */
export function readAnthropicStream(body: string): RecordedResponse {
  const response = emptyResponse();
  const blocks = new Map<number, Block>();
  const order: Block[] = [];
  let usage: Json = {};
  for (const event of readServerSentEvents(body)) {
    const data = jsonData(event);
    if (!data) continue;
    switch (data.type) {
      case 'message_start': {
        const message = record(data.message);
        response.model = text(message.model);
        usage = { ...record(message.usage) };
        break;
      }
      case 'content_block_start': {
        const block = blockOf(record(data.content_block));
        blocks.set(Number(data.index), block);
        order.push(block);
        if (block.type === 'text') response.text += text(record(data.content_block).text);
        if (block.type === 'server_tool_use')
          response.serverToolUses.push({ id: block.id, resultCame: false });
        markServerToolResult(response, record(data.content_block));
        break;
      }
      case 'content_block_delta':
        applyDelta(response, blocks.get(Number(data.index)), record(data.delta));
        break;
      case 'content_block_stop': {
        const block = blocks.get(Number(data.index));
        if (block?.type === 'tool_use') block.stopped = true;
        break;
      }
      case 'message_delta':
        response.stopReason = text(record(data.delta).stop_reason) || undefined;
        usage = { ...usage, ...record(data.usage) };
        break;
      case 'error': {
        const error = record(data.error);
        response.error = { code: text(error.type), message: text(error.message) };
        break;
      }
    }
  }
  for (const block of order) collect(response, block);
  if (response.stopReason) response.finishReason = finishReasonIn('anthropic', response.stopReason);
  if (usage.output_tokens !== undefined) {
    response.usage = {
      inputTokens:
        count(usage.input_tokens) +
        count(usage.cache_creation_input_tokens) +
        count(usage.cache_read_input_tokens),
      outputTokens: count(usage.output_tokens),
    };
  }
  return response;
}

function blockOf(block: Json): Block {
  switch (block.type) {
    case 'text':
      return { type: 'text' };
    case 'thinking':
      return { type: 'thinking', thinking: text(block.thinking), signature: text(block.signature) };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: text(block.data) };
    case 'tool_use':
      return {
        type: 'tool_use',
        id: text(block.id),
        name: text(block.name),
        json: '',
        startInput: block.input,
        stopped: false,
      };
    case 'server_tool_use':
      return { type: 'server_tool_use', id: text(block.id) };
    default:
      return { type: 'other' };
  }
}

function applyDelta(response: RecordedResponse, block: Block | undefined, delta: Json): void {
  if (delta.type === 'text_delta') response.text += text(delta.text);
  else if (delta.type === 'thinking_delta' && block?.type === 'thinking') {
    block.thinking += text(delta.thinking);
    response.reasoning += text(delta.thinking);
  } else if (delta.type === 'signature_delta' && block?.type === 'thinking')
    block.signature += text(delta.signature);
  else if (delta.type === 'input_json_delta' && block?.type === 'tool_use')
    block.json += text(delta.partial_json);
}

/** A `*_tool_result` block answers the server tool call it names. */
function markServerToolResult(response: RecordedResponse, block: Json): void {
  if (typeof block.tool_use_id !== 'string' || block.type === 'tool_result') return;
  for (const use of response.serverToolUses) if (use.id === block.tool_use_id) use.resultCame = true;
}

function collect(response: RecordedResponse, block: Block): void {
  if (block.type === 'thinking')
    response.reasoningMetadata.push({
      kind: 'anthropic-thinking',
      thinking: block.thinking,
      signature: block.signature,
    });
  else if (block.type === 'redacted_thinking')
    response.reasoningMetadata.push({ kind: 'anthropic-redacted-thinking', data: block.data });
  else if (block.type === 'tool_use') {
    // No input deltas at all: the input is the block's own (`{}`), as Anthropic documents.
    const args = block.json === '' ? JSON.stringify(block.startInput ?? {}) : block.json;
    response.calls.push({
      id: block.id,
      name: block.name,
      arguments: args,
      complete: block.stopped && isWholeJson(args),
    });
  }
}

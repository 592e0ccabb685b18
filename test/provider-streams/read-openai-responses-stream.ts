import { count, type Json, record, records, text } from './json-fields';
import { emptyResponse, isWholeJson, type RecordedResponse } from './recorded-response';
import { jsonData, readServerSentEvents } from './server-sent-events';

/**
 * Reads an OpenAI Responses stream (also Azure's and Bedrock's). Output items are what count: a
 * `function_call` item is a call (by `call_id`, its arguments as `output_item.done` gives them), a
 * `reasoning` item carries its summary and, when asked for, its encrypted content; a refusal is the
 * answer's text and why it stopped. The response's
 * end says why it stopped: `response.completed`, `.incomplete` (with a reason) or `.failed`; an
 * `error` event is an error in the stream.
 */
export function readOpenAiResponsesStream(body: string): RecordedResponse {
  const response = emptyResponse();
  const calls = new Map<string, { id: string; name: string; arguments: string; done: boolean }>();
  let status: string | undefined;
  let incompleteReason: string | undefined;
  let refused = false;
  for (const event of readServerSentEvents(body)) {
    const data = jsonData(event);
    if (!data) continue;
    const item = record(data.item);
    switch (data.type) {
      case 'response.created':
        response.model = text(record(data.response).model);
        break;
      case 'response.output_item.added':
        if (item.type === 'function_call')
          calls.set(text(item.id), {
            id: text(item.call_id),
            name: text(item.name),
            arguments: '',
            done: false,
          });
        break;
      case 'response.function_call_arguments.delta': {
        const call = calls.get(text(data.item_id));
        if (call) call.arguments += text(data.delta);
        break;
      }
      case 'response.output_item.done':
        if (item.type === 'function_call') {
          calls.set(text(item.id), {
            id: text(item.call_id),
            name: text(item.name),
            arguments: text(item.arguments),
            done: true,
          });
        }
        if (item.type === 'reasoning') {
          response.reasoningMetadata.push({
            kind: 'openai-reasoning-item',
            id: text(item.id),
            ...(typeof item.encrypted_content === 'string'
              ? { encryptedContent: item.encrypted_content }
              : {}),
            summary: records(item.summary).map((part) => text(part.text)),
          });
        }
        break;
      case 'response.output_text.delta':
        response.text += text(data.delta);
        break;
      case 'response.refusal.delta':
        response.text += text(data.delta);
        refused = true;
        break;
      case 'response.reasoning_summary_text.delta':
        response.reasoning += text(data.delta);
        break;
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed': {
        const final = record(data.response);
        status = text(final.status);
        incompleteReason = text(record(final.incomplete_details).reason) || undefined;
        readUsage(response, record(final.usage));
        const error = record(final.error);
        if (text(error.message)) response.error ??= { code: text(error.code), message: text(error.message) };
        break;
      }
      case 'error': {
        // The error event's fields sit at its top level, or under `error` as in this corpus.
        const error = data.error === undefined ? data : record(data.error);
        response.error = { code: text(error.code) || text(error.type), message: text(error.message) };
        break;
      }
    }
  }
  response.calls = [...calls.values()].map(({ done, ...call }) => ({
    ...call,
    complete: done && isWholeJson(call.arguments),
  }));
  response.stopReason = incompleteReason ?? status;
  response.finishReason = refused
    ? 'content-filter'
    : finishReasonOf(status, incompleteReason, response.calls.length > 0);
  return response;
}

function readUsage(response: RecordedResponse, usage: Json): void {
  if (usage.input_tokens === undefined) return;
  response.usage = { inputTokens: count(usage.input_tokens), outputTokens: count(usage.output_tokens) };
}

/** The Responses API gives a status, not a reason: a completed response with calls stopped to call tools. */
function finishReasonOf(
  status: string | undefined,
  incomplete: string | undefined,
  calls: boolean,
): string | undefined {
  if (status === 'completed') return calls ? 'tool-calls' : 'stop';
  if (status === 'incomplete') return incomplete === 'content_filter' ? 'content-filter' : 'length';
  if (status === 'failed') return 'error';
  return undefined;
}

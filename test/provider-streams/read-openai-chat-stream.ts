import { finishReasonIn } from './finish-reasons';
import { count, type Json, record, records, text } from './json-fields';
import { emptyResponse, isWholeJson, type RecordedResponse } from './recorded-response';
import { jsonData, readServerSentEvents } from './server-sent-events';

/**
 * Reads a chat-completions stream (OpenAI and the servers that speak it: DeepSeek, Groq, Qwen,
 * OpenRouter, xAI). A tool call is assembled by its `index`: the first non-empty `id` and `name`
 * name it, argument pieces append (Qwen repeats the index with an empty id and empty arguments).
 * Reasoning comes as `reasoning_content` (DeepSeek, xAI) or `reasoning` (Groq, OpenRouter); a refusal
 * is the answer's text, and the reason it stopped. Errors come as an `error` event (Groq) or an `error` field in a chunk
 * (OpenRouter). Usage is the last `usage` sent, or Groq's `x_groq.usage`.
 */
export function readOpenAiChatStream(body: string): RecordedResponse {
  const response = emptyResponse();
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  let usage: Json | undefined;
  let refused = false;
  for (const event of readServerSentEvents(body)) {
    const chunk = jsonData(event);
    if (!chunk) continue;
    if (event.event === 'error' || chunk.error !== undefined) {
      const error = record(chunk.error);
      response.error = { code: String(error.code ?? error.type ?? ''), message: text(error.message) };
    }
    if (text(chunk.model)) response.model = text(chunk.model);
    const chunkUsage = chunk.usage ?? record(chunk.x_groq).usage;
    if (chunkUsage) usage = record(chunkUsage);
    for (const choice of records(chunk.choices)) {
      const delta = record(choice.delta);
      response.text += text(delta.content) + text(delta.refusal);
      refused ||= text(delta.refusal) !== '';
      response.reasoning += text(delta.reasoning_content) || text(delta.reasoning);
      for (const piece of records(delta.tool_calls)) {
        const call = calls.get(count(piece.index)) ?? { id: '', name: '', arguments: '' };
        const fn = record(piece.function);
        call.id ||= text(piece.id);
        call.name ||= text(fn.name);
        call.arguments += text(fn.arguments);
        calls.set(count(piece.index), call);
      }
      if (text(choice.finish_reason)) response.stopReason = text(choice.finish_reason);
    }
  }
  const finished = response.stopReason !== undefined;
  response.calls = [...calls.values()].map((call) => ({
    ...call,
    complete: finished && isWholeJson(call.arguments),
  }));
  // A refusal ends with `stop`, but the model declined: in durable-turns' words, a content filter.
  if (response.stopReason)
    response.finishReason = refused
      ? 'content-filter'
      : finishReasonIn('chat-completions', response.stopReason);
  if (usage) {
    response.usage = {
      inputTokens: count(usage.prompt_tokens),
      outputTokens: count(usage.completion_tokens),
    };
  }
  return response;
}

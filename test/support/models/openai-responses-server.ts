import { openAiErrorReply } from './openai-chat-server';
import {
  type HttpErrorReply,
  type Script,
  startRecordingServer,
  type TestServer,
  type WireEvent,
  writeEventStream,
  writeHttpError,
} from './recording-server';

/** A streamed Responses API answer: an optional message item, then one item per function call. */
export interface OpenAiResponsesStream {
  kind: 'stream';
  /** The response id the server gives this response (default `resp_<n>`, n the 0-based request index). */
  id?: string;
  /**
   * A reasoning item before everything else: its summary parts' deltas, and the encrypted content
   * the API returns with `include: ['reasoning.encrypted_content']` (on the item's `done` only).
   */
  reasoning?: { id: string; summary: readonly (readonly string[])[]; encryptedContent?: string };
  /** `output_text` deltas of one message item (no message item when omitted). */
  text?: readonly string[];
  /** Each call's arguments in `response.function_call_arguments.delta` pieces. */
  toolCalls?: readonly { callId: string; name: string; argumentChunks: readonly string[] }[];
  usage?: { inputTokens: number; outputTokens: number };
}

export type OpenAiResponsesReply = OpenAiResponsesStream | HttpErrorReply;

/**
 * A local OpenAI Responses API server: `POST /v1/responses` with `stream: true` answers with the
 * typed server-sent events the real API sends (`response.created` … `response.completed`).
 */
export function startOpenAiResponsesServer(script: Script<OpenAiResponsesReply>): Promise<TestServer> {
  // Every request the script answers goes through `respond`, so this counts request indexes.
  let requestIndex = 0;
  return startRecordingServer({
    path: '/v1/responses',
    script,
    noReply: (index) =>
      openAiErrorReply({ status: 400, message: `test server has no scripted reply for request #${index}` }),
    respond: async (reply, request, res) => {
      const index = requestIndex++;
      if (reply.kind === 'http-error') return writeHttpError(res, reply);
      const body = typeof request.body === 'object' && request.body !== null ? request.body : {};
      const model = 'model' in body && typeof body.model === 'string' ? body.model : 'test-model';
      await writeEventStream(res, responseEvents(reply, reply.id ?? `resp_${index}`, model));
    },
  });
}

function responseEvents(reply: OpenAiResponsesStream, id: string, model: string): WireEvent[] {
  const events: WireEvent[] = [];
  let sequence = 0;
  const push = (type: string, data: object) =>
    events.push({
      text: `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`,
    });
  const response = { id, object: 'response', created_at: 1_700_000_000, model };
  const output: object[] = [];

  push('response.created', { response: { ...response, status: 'in_progress', output: [], usage: null } });
  push('response.in_progress', { response: { ...response, status: 'in_progress', output: [], usage: null } });

  if (reply.reasoning) {
    const { id: item_id, summary, encryptedContent } = reply.reasoning;
    const output_index = output.length;
    push('response.output_item.added', {
      output_index,
      item: { id: item_id, type: 'reasoning', summary: [], encrypted_content: null },
    });
    summary.forEach((deltas, summary_index) => {
      const at = { item_id, output_index, summary_index };
      push('response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } });
      for (const delta of deltas) push('response.reasoning_summary_text.delta', { ...at, delta });
      const text = deltas.join('');
      push('response.reasoning_summary_text.done', { ...at, text });
      push('response.reasoning_summary_part.done', { ...at, part: { type: 'summary_text', text } });
    });
    const done = {
      id: item_id,
      type: 'reasoning',
      summary: summary.map((deltas) => ({ type: 'summary_text', text: deltas.join('') })),
      encrypted_content: encryptedContent ?? null,
    };
    push('response.output_item.done', { output_index, item: done });
    output.push(done);
  }

  if (reply.text) {
    const item_id = `msg_${id}`;
    const output_index = output.length;
    const text = reply.text.join('');
    const part = { type: 'output_text', text, annotations: [] };
    const item = { id: item_id, type: 'message', role: 'assistant' };
    const at = { item_id, output_index, content_index: 0 };
    push('response.output_item.added', {
      output_index,
      item: { ...item, status: 'in_progress', content: [] },
    });
    // content_part / output_text.done are not modeled by the AI SDK (parsed as unknown, ignored).
    push('response.content_part.added', { ...at, part: { ...part, text: '' } });
    for (const delta of reply.text) push('response.output_text.delta', { ...at, delta, logprobs: [] });
    push('response.output_text.done', { ...at, text, logprobs: [] });
    push('response.content_part.done', { ...at, part });
    const done = { ...item, status: 'completed', content: [part] };
    push('response.output_item.done', { output_index, item: done });
    output.push(done);
  }

  for (const call of reply.toolCalls ?? []) {
    const item_id = `fc_${call.callId}`;
    const output_index = output.length;
    const args = call.argumentChunks.join('');
    const item = { id: item_id, type: 'function_call', call_id: call.callId, name: call.name };
    push('response.output_item.added', {
      output_index,
      item: { ...item, status: 'in_progress', arguments: '' },
    });
    for (const delta of call.argumentChunks)
      push('response.function_call_arguments.delta', { item_id, output_index, delta });
    push('response.function_call_arguments.done', { item_id, output_index, arguments: args });
    // The SDK's tool-call input is this item's `arguments`, not the concatenated deltas.
    const done = { ...item, status: 'completed', arguments: args };
    push('response.output_item.done', { output_index, item: done });
    output.push(done);
  }

  const { inputTokens, outputTokens } = reply.usage ?? { inputTokens: 0, outputTokens: 0 };
  push('response.completed', {
    response: {
      ...response,
      status: 'completed',
      incomplete_details: null,
      output,
      usage: {
        input_tokens: inputTokens,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: outputTokens,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: inputTokens + outputTokens,
      },
    },
  });
  return events;
}

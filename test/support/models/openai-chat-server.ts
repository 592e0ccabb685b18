import {
  type HttpErrorReply,
  type Script,
  startRecordingServer,
  type TestServer,
  type WireEvent,
  withRawData,
  writeEventStream,
  writeHttpError,
} from './recording-server';

/** A streamed chat-completions answer, as OpenAI (and vLLM, Ollama, llama.cpp) put it on the wire. */
export interface OpenAiChatStream {
  kind: 'stream';
  /** `reasoning_content` deltas (DeepSeek, vLLM and Ollama reasoning models). */
  reasoning?: readonly string[];
  /** `content` deltas. */
  text?: readonly string[];
  /** Each call's `function.arguments` in pieces; the id and name travel in the first piece only. */
  toolCalls?: readonly {
    id: string;
    name: string;
    argumentChunks: readonly string[];
    /** Gemini's OpenAI-compatible API: `extra_content.google.thought_signature` on the call's first delta. */
    thoughtSignature?: string;
  }[];
  /** Default `tool_calls` when there are calls, else `stop`. */
  finishReason?: string;
  /** Sent in a final chunk when the request asked for it (`stream_options.include_usage`). */
  usage?: { promptTokens: number; completionTokens: number };
  /** Wait before every chunk. */
  chunkDelayMs?: number;
  /** Wait before the chunk carrying `finish_reason`. */
  finishDelayMs?: number;
  /** Send the chunk carrying `finish_reason` only once this settles. */
  finishAfter?: Promise<unknown>;
  /** Destroy the socket after this many `data:` lines. */
  truncateAfterChunks?: number;
  /** Raw `data:` payloads (e.g. a garbage chunk) written after this many of the scripted chunks. */
  inject?: readonly { afterChunks: number; data: string }[];
  /** Close the response normally after the content, without the finish chunk, usage or `[DONE]`. */
  endWithoutFinish?: boolean;
}

export type OpenAiChatReply = OpenAiChatStream | HttpErrorReply;

/** An error reply in OpenAI's error body shape. */
export function openAiErrorReply({
  status,
  message,
  type = 'invalid_request_error',
  headers,
}: {
  status: number;
  message: string;
  type?: string;
  headers?: Record<string, string>;
}): HttpErrorReply {
  return {
    kind: 'http-error',
    status,
    body: { error: { message, type, param: null, code: null } },
    ...(headers ? { headers } : {}),
  };
}

/**
 * A local OpenAI chat-completions server: `POST /v1/chat/completions` with `stream: true` answers
 * with `text/event-stream` chunks, tool-call arguments split across index-keyed deltas, usage in a
 * final chunk when asked, then `data: [DONE]`.
 */
export function startOpenAiChatServer(script: Script<OpenAiChatReply>): Promise<TestServer> {
  return startRecordingServer({
    path: '/v1/chat/completions',
    script,
    noReply: (index) =>
      openAiErrorReply({ status: 400, message: `test server has no scripted reply for request #${index}` }),
    respond: async (reply, request, res) => {
      if (reply.kind === 'http-error') return writeHttpError(res, reply);
      const body = typeof request.body === 'object' && request.body !== null ? request.body : {};
      const includeUsage =
        'stream_options' in body &&
        typeof body.stream_options === 'object' &&
        body.stream_options !== null &&
        'include_usage' in body.stream_options &&
        body.stream_options.include_usage === true;
      const model = 'model' in body && typeof body.model === 'string' ? body.model : 'test-model';
      await writeEventStream(res, chatChunks(reply, model, includeUsage), reply.truncateAfterChunks);
    },
  });
}

function chatChunks(reply: OpenAiChatStream, model: string, includeUsage: boolean): WireEvent[] {
  const base = { id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 1_700_000_000, model };
  const events: WireEvent[] = [];
  const push = (chunk: object, delayMs = reply.chunkDelayMs) =>
    events.push({
      text: `data: ${JSON.stringify({ ...base, ...chunk })}\n\n`,
      ...(delayMs ? { delayMs } : {}),
    });
  const delta = (d: object) => push({ choices: [{ index: 0, delta: d, finish_reason: null }] });

  delta({ role: 'assistant', content: '' });
  for (const piece of reply.reasoning ?? []) delta({ reasoning_content: piece });
  for (const piece of reply.text ?? []) delta({ content: piece });
  for (const [index, call] of (reply.toolCalls ?? []).entries()) {
    for (const [n, piece] of call.argumentChunks.entries()) {
      const fn = n === 0 ? { name: call.name, arguments: piece } : { arguments: piece };
      const first =
        n === 0
          ? {
              id: call.id,
              type: 'function',
              ...(call.thoughtSignature !== undefined && {
                extra_content: { google: { thought_signature: call.thoughtSignature } },
              }),
            }
          : {};
      delta({ tool_calls: [{ index, ...first, function: fn }] });
    }
  }
  if (reply.endWithoutFinish) return withRawData(events, reply.inject);
  const finishReason = reply.finishReason ?? (reply.toolCalls?.length ? 'tool_calls' : 'stop');
  push(
    { choices: [{ index: 0, delta: {}, finish_reason: finishReason }] },
    (reply.finishDelayMs ?? 0) + (reply.chunkDelayMs ?? 0),
  );
  const finish = events.at(-1);
  if (finish && reply.finishAfter) finish.after = reply.finishAfter;
  if (includeUsage && reply.usage) {
    const { promptTokens, completionTokens } = reply.usage;
    push({
      choices: [],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
    });
  }
  events.push({ text: 'data: [DONE]\n\n' });
  return withRawData(events, reply.inject);
}

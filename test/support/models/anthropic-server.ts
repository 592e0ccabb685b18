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

/** A streamed Messages API answer, block by block as Anthropic sends it. */
export interface AnthropicStream {
  kind: 'stream';
  /** A thinking block's deltas (closed with a signature). */
  thinking?: readonly string[];
  /** The signature closing the thinking block (default `sig-test`). */
  signature?: string;
  /** A `redacted_thinking` block's opaque data, after the thinking block. */
  redactedThinking?: string;
  /** A text block's deltas. */
  text?: readonly string[];
  /** Each tool_use block's input as `input_json_delta` pieces. */
  toolUses?: readonly { id: string; name: string; inputChunks: readonly string[] }[];
  /** Default `tool_use` when there are calls, else `end_turn`. */
  stopReason?: string;
  usage?: { inputTokens: number; outputTokens: number };
  /** Instead of `message_delta` / `message_stop`, an `event: error` (e.g. `overloaded_error`). */
  streamError?: { type: string; message: string };
  chunkDelayMs?: number;
  /** Wait before `message_delta`. */
  finishDelayMs?: number;
  /** Destroy the socket after this many events. */
  truncateAfterEvents?: number;
  /** Raw `data:` payloads (e.g. a garbage chunk) written after this many of the scripted events. */
  inject?: readonly { afterChunks: number; data: string }[];
  /** Close the response normally after the content blocks, without `message_delta` / `message_stop`. */
  endWithoutStop?: boolean;
}

export type AnthropicReply = AnthropicStream | HttpErrorReply;

/** An error reply in Anthropic's error body shape. */
export function anthropicErrorReply({
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
    body: { type: 'error', error: { type, message } },
    ...(headers ? { headers } : {}),
  };
}

/**
 * A local Anthropic Messages server: `POST /v1/messages` with `stream: true` answers with
 * `message_start`, content blocks (`content_block_start` / `_delta` / `_stop`), `message_delta`
 * (stop reason, output tokens) and `message_stop`.
 */
export function startAnthropicServer(script: Script<AnthropicReply>): Promise<TestServer> {
  return startRecordingServer({
    path: '/v1/messages',
    script,
    noReply: (index) =>
      anthropicErrorReply({
        status: 400,
        message: `test server has no scripted reply for request #${index}`,
      }),
    respond: async (reply, request, res) => {
      if (reply.kind === 'http-error') return writeHttpError(res, reply);
      const body = typeof request.body === 'object' && request.body !== null ? request.body : {};
      const model = 'model' in body && typeof body.model === 'string' ? body.model : 'test-model';
      await writeEventStream(res, messageEvents(reply, model), reply.truncateAfterEvents);
    },
  });
}

function messageEvents(reply: AnthropicStream, model: string): WireEvent[] {
  const events: WireEvent[] = [];
  const push = (data: { type: string } & Record<string, unknown>, delayMs = reply.chunkDelayMs) =>
    events.push({
      text: `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`,
      ...(delayMs ? { delayMs } : {}),
    });
  const usage = reply.usage ?? { inputTokens: 0, outputTokens: 0 };

  push({
    type: 'message_start',
    message: {
      id: 'msg_test',
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: usage.inputTokens, output_tokens: 1 },
    },
  });
  let index = 0;
  const block = (start: object, deltas: readonly object[], beforeStop: readonly object[] = []) => {
    push({ type: 'content_block_start', index, content_block: start });
    for (const delta of [...deltas, ...beforeStop]) push({ type: 'content_block_delta', index, delta });
    push({ type: 'content_block_stop', index });
    index += 1;
  };
  if (reply.thinking)
    block(
      { type: 'thinking', thinking: '' },
      reply.thinking.map((thinking) => ({ type: 'thinking_delta', thinking })),
      [{ type: 'signature_delta', signature: reply.signature ?? 'sig-test' }],
    );
  if (reply.redactedThinking !== undefined)
    block({ type: 'redacted_thinking', data: reply.redactedThinking }, []);
  if (reply.text)
    block(
      { type: 'text', text: '' },
      reply.text.map((text) => ({ type: 'text_delta', text })),
    );
  for (const use of reply.toolUses ?? [])
    block(
      { type: 'tool_use', id: use.id, name: use.name, input: {} },
      use.inputChunks.map((partial_json) => ({ type: 'input_json_delta', partial_json })),
    );
  if (reply.streamError) {
    push({ type: 'error', error: reply.streamError });
    return withRawData(events, reply.inject);
  }
  if (reply.endWithoutStop) return withRawData(events, reply.inject);
  push(
    {
      type: 'message_delta',
      delta: {
        stop_reason: reply.stopReason ?? (reply.toolUses?.length ? 'tool_use' : 'end_turn'),
        stop_sequence: null,
      },
      usage: { output_tokens: usage.outputTokens },
    },
    (reply.finishDelayMs ?? 0) + (reply.chunkDelayMs ?? 0),
  );
  push({ type: 'message_stop' });
  return withRawData(events, reply.inject);
}

/**
 * What a correct consumer must see in one recorded response, read from the raw stream by this
 * folder's own readers (never through the AI SDK): the expectations every replay is held to.
 */
export interface RecordedResponse {
  /** Client tool calls, in stream order. Provider-executed calls (server tools) are not among them. */
  calls: RecordedCall[];
  /** Text of the answer, every text block joined (a refusal is the answer's text too). */
  text: string;
  /** Reasoning text, every reasoning block or summary part joined. */
  reasoning: string;
  /** What lets the provider take the reasoning back (signatures, redacted blocks, encrypted items). */
  reasoningMetadata: RecordedReasoningMetadata[];
  /** Ids of provider-executed calls (Anthropic server tools) and whether their result came too. */
  serverToolUses: { id: string; resultCame: boolean }[];
  usage?: { inputTokens: number; outputTokens: number };
  /** The provider's own stop reason (`tool_use`, `tool_calls`, `max_tokens`, `completed`, …). */
  stopReason?: string;
  /** The stop reason in durable-turns' words, as the turn records it (`tool-calls`, `stop`, `length`, …). */
  finishReason?: string;
  /** An error the provider sent inside the stream, after answering 200. */
  error?: RecordedStreamError;
  /** The model id the provider named in the stream. */
  model?: string;
}

export interface RecordedCall {
  id: string;
  name: string;
  /** The argument text exactly as streamed. */
  arguments: string;
  /** The provider closed the call and its arguments are whole JSON: a consumer may run it. */
  complete: boolean;
}

export type RecordedReasoningMetadata =
  /** Anthropic `thinking` block, closed with its signature (the text may be empty). */
  | { kind: 'anthropic-thinking'; thinking: string; signature: string }
  /** Anthropic `redacted_thinking` block: opaque data only. */
  | { kind: 'anthropic-redacted-thinking'; data: string }
  /** OpenAI Responses `reasoning` output item. */
  | { kind: 'openai-reasoning-item'; id: string; encryptedContent?: string; summary: string[] };

export interface RecordedStreamError {
  /** The provider's code or type (`insufficient_quota`, `tool_use_failed`, `400`, …). */
  code: string;
  message: string;
}

export function emptyResponse(): RecordedResponse {
  return { calls: [], text: '', reasoning: '', reasoningMetadata: [], serverToolUses: [] };
}

/** Whether a string is a whole JSON value. */
export function isWholeJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

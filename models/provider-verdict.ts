import type { ProviderErrorReport } from './provider-error-report';

/** What a provider's own code says of a failure: worth asking again, final, or a conversation too long. */
export type ProviderVerdict =
  | { kind: 'transient' }
  /** `generic`: a type that says no more than a 4xx would (`invalid_request_error`), not a specific cause. */
  | { kind: 'rejected'; why: string; generic?: true }
  | { kind: 'context-overflow' };

/**
 * Documented codes and types that say asking again cannot help, with the reason in plain words:
 * OpenAI's error codes (https://platform.openai.com/docs/guides/error-codes) and Anthropic's error
 * types (https://docs.anthropic.com/en/api/errors), which OpenAI-compatible servers reuse.
 */
const finalCodes = new Map<string, string>([
  ['insufficient_quota', "the account's quota or billing"],
  ['billing_error', "the account's billing"],
  ['invalid_api_key', 'authentication failed; check the API key'],
  ['authentication_error', 'authentication failed; check the API key'],
  ['permission_error', 'the API key lacks the permission; check it and its permissions'],
  ['permission_denied', 'the API key lacks the permission; check it and its permissions'],
  ['unsupported_country_region_territory', 'the provider does not serve this region'],
  ['model_not_found', 'no such model; check the model name and the base URL'],
]);

/**
 * Types that name a class of rejection rather than its cause: final in a stream frame (no status
 * came), but they do not overrule a retryable HTTP status (some servers label a 429 this way).
 */
const genericFinalTypes = new Map<string, string>([
  ['invalid_request_error', 'the provider found the request invalid'],
  ['not_found_error', 'not found; check the model name and the base URL'],
  ['request_too_large', 'the request is larger than the provider accepts'],
]);

/** Documented codes and types of a fault on the provider's side, or of a limit that passes. */
const transientCodes = new Set([
  'overloaded_error',
  'api_error',
  'rate_limit_error',
  'timeout_error',
  'server_error',
  'rate_limit_exceeded',
]);

/** Codes for a conversation (or one message of it) longer than the model takes. */
const contextOverflowCodes = new Set([
  'context_length_exceeded', // OpenAI, Azure, Groq
  'string_above_max_length', // OpenAI: one message's text above its limit
  'exceed_context_size_error', // llama.cpp server
]);

/**
 * How servers word a context overflow when no code says so, each as the provider sends it (from its
 * documentation or error reports): Anthropic "prompt is too long: 208310 tokens > 200000 maximum"
 * and "input length and `max_tokens` exceed context limit"; OpenAI and those copying it (vLLM,
 * DeepSeek, OpenRouter) "maximum context length is 128000 tokens"; the Responses API "Your input
 * exceeds the context window of this model"; Groq "Please reduce the length of the messages"; Gemini
 * "The input token count (…) exceeds the maximum number of tokens allowed"; xAI "maximum prompt
 * length is 131072"; Bedrock "Input is too long for requested model"; llama.cpp "exceeds the
 * available context size"; LM Studio "greater than the context length"; Mistral "too large for
 * model with 32768 maximum context length".
 */
const contextOverflowWords = [
  /prompt is too long/i,
  /exceeds? (the )?context (limit|window)/i,
  /maximum context length/i,
  /reduce the length of the messages/i,
  /input token count.*exceeds the maximum/i,
  /maximum prompt length is \d+/i,
  /input is too long for (the )?requested model/i,
  /exceeds the available context size/i,
  /greater than the context length/i,
  /too large for model with \d+ maximum context length/i,
  /context[_ ]length[_ ]exceeded/i,
];

/**
 * The provider's verdict on a failure, from its codes (most specific first) and words. A transient
 * code wins over overflow words (a rate limit on tokens per minute is not a long conversation).
 * Undefined when it said nothing this table knows.
 */
export function providerVerdict(report: ProviderErrorReport | undefined): ProviderVerdict | undefined {
  if (!report) return undefined;
  if (report.codes.some((code) => contextOverflowCodes.has(code))) return { kind: 'context-overflow' };
  if (report.codes.some((code) => transientCodes.has(code))) return { kind: 'transient' };
  const message = report.message ?? '';
  if (contextOverflowWords.some((words) => words.test(message))) return { kind: 'context-overflow' };
  for (const code of report.codes) {
    const why = finalCodes.get(code);
    if (why) return { kind: 'rejected', why };
  }
  for (const code of report.codes) {
    const why = genericFinalTypes.get(code);
    if (why) return { kind: 'rejected', why, generic: true };
  }
  return undefined;
}

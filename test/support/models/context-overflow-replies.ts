import type { HttpErrorReply } from './recording-server';

/*
 * What OpenAI and Anthropic answer a request longer than the model's context window. No recording
 * of the corpus holds one: these are written here, in the error shapes and with the words each
 * provider documents (OpenAI's `context_length_exceeded`; Anthropic's `invalid_request_error` "prompt
 * is too long").
 */

export const openAiContextOverflowMessage =
  "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.";

/** OpenAI's 400 (chat completions and Responses API alike). */
export const openAiContextOverflow: HttpErrorReply = {
  kind: 'http-error',
  status: 400,
  body: {
    error: {
      message: openAiContextOverflowMessage,
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    },
  },
};

export const anthropicContextOverflowMessage = 'prompt is too long: 208310 tokens > 200000 maximum';

/** Anthropic's 400. */
export const anthropicContextOverflow: HttpErrorReply = {
  kind: 'http-error',
  status: 400,
  body: {
    type: 'error',
    error: { type: 'invalid_request_error', message: anthropicContextOverflowMessage },
    request_id: 'req_011CSHoEeqs5C35K2UUqR7Fy',
  },
};

/** How durable-turns says a context overflow, after the provider's own words. */
export const contextOverflowSaid =
  "(context overflow: the conversation is longer than the model's context window; not retried)";

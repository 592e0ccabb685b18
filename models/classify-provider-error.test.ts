import {
  APICallError,
  InvalidResponseDataError,
  JSONParseError,
  TypeValidationError,
} from '@ai-sdk/provider';
import { ModelError } from '../core';
import {
  anthropicContextOverflow,
  contextOverflowSaid,
  openAiContextOverflow,
} from '../test/support/models/context-overflow-replies';
import { classifyProviderError, parseRetryAfter, unfinishedStreamError } from './classify-provider-error';

function apiError(
  statusCode: number | undefined,
  options: {
    headers?: Record<string, string>;
    message?: string;
    body?: unknown;
    isRetryable?: boolean;
  } = {},
) {
  return new APICallError({
    message: options.message ?? 'provider says no',
    url: 'http://127.0.0.1/v1/chat/completions',
    requestBodyValues: {},
    ...(statusCode !== undefined ? { statusCode } : {}),
    ...(options.headers ? { responseHeaders: options.headers } : {}),
    ...(options.body !== undefined ? { responseBody: JSON.stringify(options.body) } : {}),
    ...(options.isRetryable !== undefined ? { isRetryable: options.isRetryable } : {}),
  });
}

/**
 * What `@ai-sdk/openai` and `@ai-sdk/anthropic` throw for an error event that came before any
 * output: an APICallError with a status made up from the frame's code, on a 200 event stream.
 */
function frameError({
  madeUpStatus,
  isRetryable,
  frame,
}: {
  madeUpStatus: number;
  isRetryable: boolean;
  frame: Record<string, unknown>;
}) {
  const message = JSON.stringify(frame).match(/"message":"([^"]*)"/)?.[1] ?? 'stream failed';
  return new APICallError({
    message,
    url: 'http://127.0.0.1/v1/responses',
    requestBodyValues: {},
    statusCode: madeUpStatus,
    responseHeaders: { 'content-type': 'text/event-stream' },
    responseBody: JSON.stringify(frame),
    data: frame,
    isRetryable,
  });
}

const classify = (error: unknown, extra: Partial<Parameters<typeof classifyProviderError>[0]> = {}) =>
  classifyProviderError({
    error,
    provider: 'test.chat',
    now: () => Date.parse('2025-01-01T00:00:00Z'),
    ...extra,
  });

describe('classifyProviderError', () => {
  it.each([408, 409, 429, 500, 502, 503, 529])('retries HTTP %i', (status) => {
    expect(classify(apiError(status))).toMatchObject({ retryable: true });
  });

  it.each([400, 401, 403, 404, 422])(
    'does not retry HTTP %i and names the status and the provider’s message',
    (status) => {
      const error = classify(apiError(status, { message: 'model not found' }));
      expect(error.retryable).toBe(false);
      expect(error.message).toContain(`HTTP ${status}`);
      expect(error.message).toContain('model not found');
      expect(error.message).toContain('test.chat');
    },
  );

  it('says what to check for an authentication failure', () => {
    expect(classify(apiError(401)).message).toContain('check the API key');
  });

  it('honours retry-after in seconds, as an HTTP date, and retry-after-ms', () => {
    expect(classify(apiError(429, { headers: { 'retry-after': '2' } })).retryAfterMs).toBe(2000);
    expect(
      classify(apiError(503, { headers: { 'retry-after': 'Wed, 01 Jan 2025 00:00:30 GMT' } })).retryAfterMs,
    ).toBe(30_000);
    expect(
      classify(apiError(429, { headers: { 'retry-after-ms': '1500', 'retry-after': '9' } })).retryAfterMs,
    ).toBe(1500);
    expect(classify(apiError(429)).retryAfterMs).toBeUndefined();
  });

  it('reads retry headers case-insensitively and ignores unreadable ones', () => {
    expect(parseRetryAfter({ 'Retry-After': '1' })).toBe(1000);
    expect(parseRetryAfter({ 'retry-after': 'soon' })).toBeUndefined();
    expect(
      parseRetryAfter({ 'retry-after': 'Wed, 01 Jan 2020 00:00:00 GMT' }, () => Date.parse('2025-01-01')),
    ).toBe(0);
  });

  it('retries a connection that failed before any status', () => {
    const refused = new APICallError({
      message: 'Cannot connect to API: connect ECONNREFUSED',
      url: 'http://127.0.0.1:1',
      requestBodyValues: {},
      isRetryable: true,
    });
    expect(classify(refused)).toMatchObject({ retryable: true });
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    expect(classify(reset)).toMatchObject({ retryable: true });
  });

  it('retries a stream that broke after a 200 (the SDK wraps the dropped socket)', () => {
    const terminated = new TypeError('terminated', {
      cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
    });
    const broke = new APICallError({
      message: 'Failed to process successful response',
      url: 'http://127.0.0.1/v1',
      requestBodyValues: {},
      statusCode: 200,
      responseHeaders: { 'content-type': 'text/event-stream' },
      cause: terminated,
    });
    const error = classify(broke);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('response stream broke');
  });

  it('never retries an abort, even when the provider reports it as something else', () => {
    const abort = Object.assign(new Error('This operation was aborted'), { name: 'AbortError' });
    expect(classify(abort)).toMatchObject({ retryable: false, message: 'test.chat request aborted' });
    const controller = new AbortController();
    controller.abort();
    expect(classify(apiError(500), { signal: controller.signal })).toMatchObject({ retryable: false });
  });

  it('retries transient in-stream error objects and not other ones', () => {
    expect(classify({ type: 'overloaded_error', message: 'Overloaded' })).toMatchObject({ retryable: true });
    expect(classify({ error: { message: 'boom', type: 'server_error' } })).toMatchObject({ retryable: true });
    const other = classify({ type: 'invalid_request_error', message: 'bad' });
    expect(other).toMatchObject({ retryable: false });
    expect(other.message).toContain('bad');
  });

  it('retries an in-stream error its provider marks retryable, though its kind is not one we know', () => {
    // What AI SDK 5+ provider packages send: their own verdict, and a status made up from the type.
    const busy = {
      message: 'The server is busy',
      type: 'server_is_busy',
      statusCode: 503,
      isRetryable: true,
    };
    expect(classify(busy)).toMatchObject({
      retryable: true,
      message: 'test.chat stream error server_is_busy: The server is busy (transient)',
    });
    expect(classify({ ...busy, isRetryable: false })).toMatchObject({
      retryable: false,
      message:
        'test.chat stream error server_is_busy: The server is busy (not retried: the provider marks it final)',
    });
  });

  describe('an in-stream error (the server answered 200, then sent an error event)', () => {
    const quotaMessage = 'You exceeded your current quota, please check your plan and billing details.';
    const quotaFrame = {
      type: 'error',
      sequence_number: 2,
      error: { type: 'insufficient_quota', code: 'insufficient_quota', message: quotaMessage, param: null },
    };
    const quotaSaid = `test.chat stream error insufficient_quota: ${quotaMessage} (not retried: the account's quota or billing)`;

    it('is final on insufficient_quota, and says so with the provider’s code and message, not the 429 the SDK made up', () => {
      const error = classify(frameError({ madeUpStatus: 429, isRetryable: false, frame: quotaFrame }));
      expect(error).toMatchObject({ retryable: false, kind: 'rejected', code: 'model-rejected' });
      expect(error.message).toBe(quotaSaid);
      expect(error.message).not.toMatch(/HTTP|429/);
    });

    it('reads the same verdict from the stream part of every provider package, and says how far the stream got', () => {
      // @ai-sdk/openai 4 after the first output: the frame's fields, its verdict and a made-up status.
      const v4 = {
        message: quotaMessage,
        type: 'insufficient_quota',
        code: 'insufficient_quota',
        statusCode: 429,
        isRetryable: false,
        data: quotaFrame,
      };
      // @ai-sdk/openai 3 over chat completions: the frame's error object as it came.
      const v3 = {
        message: quotaMessage,
        type: 'insufficient_quota',
        param: null,
        code: 'insufficient_quota',
      };
      for (const part of [v4, v3, quotaFrame]) {
        const error = classify(part, { partsReceived: 2 });
        expect(error.retryable).toBe(false);
        expect(error.message).toBe(
          quotaSaid.replace('insufficient_quota:', 'insufficient_quota after 2 parts:'),
        );
      }
    });

    it('is final on the Responses API’s response.failed with a final code', () => {
      const failed = {
        type: 'response.failed',
        sequence_number: 3,
        response: { error: { code: 'insufficient_quota', message: quotaMessage } },
      };
      expect(classify(frameError({ madeUpStatus: 429, isRetryable: false, frame: failed }))).toMatchObject({
        retryable: false,
        message: quotaSaid,
      });
    });

    it('is final on an invalid request, naming the provider’s most specific code (Groq’s tool_use_failed)', () => {
      const groq = {
        message:
          'Tool call validation failed: parameters for tool get_something_by_name did not match schema',
        type: 'invalid_request_error',
        code: 'tool_use_failed',
      };
      expect(classify(groq, { partsReceived: 94 })).toMatchObject({
        retryable: false,
        message: `test.chat stream error tool_use_failed after 94 parts: ${groq.message} (not retried: the provider found the request invalid)`,
      });
    });

    it('is final on a 4xx status the provider wrote into its frame, which is not said as HTTP (OpenRouter)', () => {
      const error = classify({ code: 400, message: 'Token limit reached' }, { partsReceived: 5 });
      expect(error).toMatchObject({
        retryable: false,
        message:
          'test.chat stream error 400 after 5 parts: Token limit reached (not retried: its error frame says 400)',
      });
      expect(classify({ code: 503, message: 'upstream busy' })).toMatchObject({ retryable: true });
    });

    it('retries a documented transient type though the provider package calls it final (Anthropic 3’s first chunk)', () => {
      // @ai-sdk/anthropic 3 calls every first-chunk error but overloaded_error final, with a status of 500.
      const apiError = frameError({
        madeUpStatus: 500,
        isRetryable: false,
        frame: { type: 'api_error', message: 'Internal server error' },
      });
      expect(classify(apiError)).toMatchObject({
        retryable: true,
        message: 'test.chat stream error api_error: Internal server error (transient)',
      });
    });

    it('retries a frame that says nothing this classifier knows: only a verdict stops retries', () => {
      expect(classify({ type: 'weird_error', message: 'odd' })).toMatchObject({
        retryable: true,
        message: 'test.chat stream error weird_error: odd (transient)',
      });
    });
  });

  describe('a context overflow', () => {
    // Bodies in each provider's documented error shape, with the words each sends, written here.
    const overflows: [string, unknown][] = [
      ['OpenAI chat completions', openAiContextOverflow.body],
      [
        'the OpenAI Responses API',
        {
          error: {
            message:
              'Your input exceeds the context window of this model. Please adjust your input and try again.',
            type: 'invalid_request_error',
            param: 'input',
            code: 'context_length_exceeded',
          },
        },
      ],
      [
        'OpenAI, one message too long',
        {
          error: {
            message:
              "Invalid 'messages[3].content': string too long. Expected a string with maximum length 10485760.",
            type: 'invalid_request_error',
            param: 'messages[3].content',
            code: 'string_above_max_length',
          },
        },
      ],
      ['Anthropic', anthropicContextOverflow.body],
      [
        'Anthropic, input and max_tokens together',
        {
          type: 'error',
          error: {
            type: 'invalid_request_error',
            message:
              'input length and `max_tokens` exceed context limit: 197202 + 21333 > 200000, decrease input length or `max_tokens` and try again',
          },
        },
      ],
      [
        'vLLM',
        {
          object: 'error',
          message:
            "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens. Please reduce the length of the messages or completion.",
          type: 'BadRequestError',
          param: null,
          code: 400,
        },
      ],
      [
        'llama.cpp',
        {
          error: {
            code: 400,
            message: 'the request exceeds the available context size, try increasing it',
            type: 'exceed_context_size_error',
          },
        },
      ],
    ];

    it.each(overflows)('from %s is its own kind, not retried, and says so', (_, body) => {
      const error = classify(apiError(400, { body, message: readErrorMessage(body) }));
      expect(error).toMatchObject({
        retryable: false,
        kind: 'context-overflow',
        code: 'model-context-overflow',
      });
      expect(error.message).toContain('HTTP 400 Bad Request');
      expect(error.message).toContain(contextOverflowSaid);
      expect(error.message).toContain(readErrorMessage(body).slice(0, 40));
    });

    it('in a stream is said as a stream error', () => {
      const failed = {
        type: 'response.failed',
        response: {
          error: { code: 'context_length_exceeded', message: 'Your input exceeds the context window' },
        },
      };
      const error = classify(frameError({ madeUpStatus: 400, isRetryable: false, frame: failed }));
      expect(error).toMatchObject({ kind: 'context-overflow', retryable: false });
      expect(error.message).toMatch(/^test\.chat stream error context_length_exceeded: Your input exceeds/);
      expect(error.message).not.toContain('HTTP');
    });

    it('is not a rate limit on tokens per minute, nor an answer cut at its own token limit', () => {
      const perMinute = {
        error: {
          message:
            'Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Requested 50000.',
          type: 'tokens',
          param: null,
          code: 'rate_limit_exceeded',
        },
      };
      expect(classify(apiError(429, { body: perMinute }))).toMatchObject({ kind: 'transient' });
      expect(classify({ code: 400, message: 'Token limit reached' })).toMatchObject({ kind: 'rejected' });
    });
  });

  describe('the provider’s verdict in an HTTP error body', () => {
    it('makes a 429 for a spent quota final, naming the status the server sent and the reason', () => {
      const body = {
        error: {
          message: 'You exceeded your current quota, please check your plan and billing details.',
          type: 'insufficient_quota',
          param: null,
          code: 'insufficient_quota',
        },
      };
      const error = classify(apiError(429, { body, message: body.error.message }));
      expect(error).toMatchObject({ retryable: false, kind: 'rejected' });
      expect(error.message).toBe(
        `test.chat rejected the request with HTTP 429 Too Many Requests: insufficient_quota: ${body.error.message} (not retried: the account's quota or billing)`,
      );
    });

    it('keeps a rate limit transient, with its retry-after', () => {
      const body = {
        error: { message: 'slow down', type: 'requests', param: null, code: 'rate_limit_exceeded' },
      };
      expect(classify(apiError(429, { body, headers: { 'retry-after': '2' } }))).toMatchObject({
        retryable: true,
        retryAfterMs: 2000,
      });
    });

    it('says what an authentication or permission failure needs, in the provider’s words', () => {
      const key = {
        error: {
          message: 'Incorrect API key provided',
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      };
      expect(classify(apiError(401, { body: key })).message).toContain(
        'invalid_api_key: provider says no (not retried: authentication failed; check the API key)',
      );
      const permission = {
        type: 'error',
        error: { type: 'permission_error', message: 'no access to this model' },
      };
      expect(classify(apiError(403, { body: permission })).message).toContain(
        'not retried: the API key lacks',
      );
    });

    it('does not retry a retryable status the provider package marks final', () => {
      expect(classify(apiError(503, { isRetryable: false }))).toMatchObject({
        retryable: false,
        message:
          'test.chat rejected the request with HTTP 503 Service Unavailable: provider says no (not retried; the provider marks it final)',
      });
    });
  });

  it('retries a stream chunk that is not JSON, quoting it cut short and saying how far the stream got', () => {
    const garbage = `<html>${'x'.repeat(10_000)}`;
    const error = classify(
      new JSONParseError({ text: garbage, cause: new SyntaxError('Unexpected token <') }),
      {
        partsReceived: 3,
      },
    );
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(
      /^test\.chat sent a stream chunk that is not JSON after 3 parts: <html>x+… \(9506 more characters\) \(transient\)$/,
    );
  });

  it('retries a chunk of the wrong shape and invalid stream data, naming what arrived', () => {
    const shape = classify(
      new TypeValidationError({ value: { choices: 'nope' }, cause: new Error('expected array') }),
    );
    expect(shape).toMatchObject({ retryable: true });
    expect(shape.message).toContain('{"choices":"nope"}');
    const data = classify(
      new InvalidResponseDataError({ data: { index: 0, id: 7 }, message: "Expected 'id' to be a string." }),
      { partsReceived: 1 },
    );
    expect(data).toMatchObject({ retryable: true });
    expect(data.message).toContain("after 1 part (Expected 'id' to be a string.)");
    expect(data.message).toContain('{"index":0,"id":7}');
  });

  it('retries a first chunk the Anthropic provider could not read, though it keeps nothing to quote', () => {
    const error = classify(new Error('Expected a normalized Anthropic stream error'));
    expect(error).toMatchObject({
      retryable: true,
      message:
        'test.chat sent a first stream chunk it could not read (the provider keeps no copy to quote) (transient)',
    });
    expect(classify(new Error('Expected a normalized answer'))).toMatchObject({ retryable: false });
  });

  it('retries a stream that ended without a finish reason, saying after how many parts', () => {
    const missing = new InvalidResponseDataError({
      data: undefined,
      message: 'Response stream ended without a finish reason.',
    });
    expect(classify(missing, { partsReceived: 2 })).toMatchObject({
      retryable: true,
      message: 'test.chat stream ended without a finish reason after 2 parts (transient)',
    });
    expect(unfinishedStreamError({ provider: 'p', partsReceived: 1 }).message).toBe(
      'p stream ended without a finish reason after 1 part (transient)',
    );
  });

  it('cuts a long provider message short', () => {
    const error = classify(apiError(400, { message: 'y'.repeat(5_000) }));
    expect(error.retryable).toBe(false);
    expect(error.message.length).toBeLessThan(700);
  });

  it('does not retry anything else, and keeps its message', () => {
    expect(classify(new Error('schema mismatch'))).toMatchObject({
      retryable: false,
      message: 'test.chat error: schema mismatch',
    });
  });

  it('passes a ModelError through as it is', () => {
    const original = new ModelError('already classified', true, 5);
    expect(classify(original)).toBe(original);
  });

  it('gives every ModelError a kind and a code to match, a context overflow never retryable', () => {
    expect(new ModelError('a', true)).toMatchObject({ kind: 'transient', code: 'model-transient' });
    expect(new ModelError('b', false)).toMatchObject({ kind: 'rejected', code: 'model-rejected' });
    expect(new ModelError('c', true, undefined, { kind: 'context-overflow' })).toMatchObject({
      kind: 'context-overflow',
      code: 'model-context-overflow',
      retryable: false,
    });
  });

  it('blanks out secrets and key-shaped tokens from provider text', () => {
    const message = 'Incorrect API key provided: sk-proj-abcdefghijklmnop. Also my-secret-value';
    const error = classify(apiError(401, { message }), { secrets: ['my-secret-value'] });
    expect(error.message).not.toContain('sk-proj-abcdefghijklmnop');
    expect(error.message).not.toContain('my-secret-value');
    expect(error.message).toContain('[redacted]');
  });
});

/** The provider's message in an error body of any of the shapes above. */
function readErrorMessage(body: unknown): string {
  const text = JSON.stringify(body);
  return JSON.parse(`"${text.match(/"message":"((?:[^"\\]|\\.)*)"/)?.[1] ?? ''}"`) as string;
}

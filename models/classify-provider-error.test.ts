import {
  APICallError,
  InvalidResponseDataError,
  JSONParseError,
  TypeValidationError,
} from '@ai-sdk/provider';
import { ModelError } from '../core';
import { classifyProviderError, parseRetryAfter, unfinishedStreamError } from './classify-provider-error';

function apiError(
  statusCode: number | undefined,
  options: { headers?: Record<string, string>; message?: string } = {},
) {
  return new APICallError({
    message: options.message ?? 'provider says no',
    url: 'http://127.0.0.1/v1/chat/completions',
    requestBodyValues: {},
    ...(statusCode !== undefined ? { statusCode } : {}),
    ...(options.headers ? { responseHeaders: options.headers } : {}),
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
    // What AI SDK 7 providers send: their own verdict, from the error's type or status.
    const busy = {
      message: 'The server is busy',
      type: 'server_is_busy',
      statusCode: 503,
      isRetryable: true,
    };
    expect(classify(busy)).toMatchObject({
      retryable: true,
      message: 'test.chat stream error (server_is_busy): The server is busy',
    });
    expect(classify({ ...busy, isRetryable: false })).toMatchObject({ retryable: false });
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

  it('blanks out secrets and key-shaped tokens from provider text', () => {
    const message = 'Incorrect API key provided: sk-proj-abcdefghijklmnop. Also my-secret-value';
    const error = classify(apiError(401, { message }), { secrets: ['my-secret-value'] });
    expect(error.message).not.toContain('sk-proj-abcdefghijklmnop');
    expect(error.message).not.toContain('my-secret-value');
    expect(error.message).toContain('[redacted]');
  });
});

import {
  APICallError,
  InvalidResponseDataError,
  JSONParseError,
  TypeValidationError,
} from '@ai-sdk/provider';
import { ModelError } from '../core';
import {
  contextOverflowSaying,
  retryableStatuses,
  streamErrorOf,
  streamFrameOf,
} from './classify-stream-error';
import { parseBody, readErrorReport } from './provider-error-report';
import { providerVerdict } from './provider-verdict';

/** Codes Node, undici and Bun put on errors (or their causes) when the connection itself failed. */
const networkErrorCodes = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'ConnectionRefused',
  'ConnectionClosed',
  'FailedToOpenSocket',
]);

const statusNames = new Map<number, string>([
  [400, 'Bad Request'],
  [401, 'Unauthorized'],
  [403, 'Forbidden'],
  [404, 'Not Found'],
  [408, 'Request Timeout'],
  [409, 'Conflict'],
  [413, 'Payload Too Large'],
  [422, 'Unprocessable Entity'],
  [429, 'Too Many Requests'],
  [500, 'Internal Server Error'],
  [502, 'Bad Gateway'],
  [503, 'Service Unavailable'],
  [504, 'Gateway Timeout'],
  [529, 'Overloaded'],
]);

const fixHints = new Map<number, string>([
  [401, 'check the API key'],
  [403, 'check the API key and its permissions'],
  [404, 'check the model name and the base URL'],
]);

/** How much of what a provider sent goes into a message: enough to recognise it, not a megabyte. */
const maxQuotedChars = 500;

/**
 * Turns whatever a provider call threw (or sent as a stream `error` part) into a `ModelError`.
 * The provider's own verdict wins: a documented code in its error body or frame (`insufficient_quota`,
 * `invalid_request_error`, authentication, permission) is final, says so in plain words and quotes
 * the provider's message; a conversation longer than the model's context window is its own kind,
 * `context-overflow`; an error the provider package marks not retryable is not retried, whatever
 * its status. Without a verdict, rate limits, 5xx and dropped connections are retryable (with the
 * server's `retry-after` when it sent one) and other 4xx are not. An in-stream error (the server
 * answered 2xx, then sent an error event) is said as one, with the provider's code, never with an
 * HTTP status the server did not send. An abort is never retried. A malformed stream (a chunk that
 * is not JSON or not the expected shape, invalid stream data, a stream that ends without a finish
 * reason) is a transient failure like a dropped connection at the same point — the bytes were
 * mangled on the way, asking again may well work — and its message quotes what arrived, cut short.
 * Messages never carry request headers, so the API key cannot leak through them; `secrets` are also
 * blanked out of provider-supplied text, as are `sk-…`-shaped tokens.
 */
export function classifyProviderError({
  error,
  provider = 'model provider',
  signal,
  secrets = [],
  partsReceived,
  now = Date.now,
}: {
  error: unknown;
  /** Who answered, for the message (e.g. `openai.chat`). */
  provider?: string;
  /** The request's signal: once it fired, any failure is the abort. */
  signal?: AbortSignal;
  secrets?: readonly string[];
  /** Stream parts handed on before the failure, when it happened mid-stream (for the message). */
  partsReceived?: number;
  now?: () => number;
}): ModelError {
  if (ModelError.isInstance(error)) return error;
  const clean = (text: string) => quote(redact(text, secrets));
  if (signal?.aborted || isAbort(error)) return new ModelError(`${provider} request aborted`, false);
  const after = partsReceived === undefined ? '' : ` after ${plural(partsReceived, 'part')}`;

  if (JSONParseError.isInstance(error)) {
    return new ModelError(
      `${provider} sent a stream chunk that is not JSON${after}: ${clean(error.text)} (transient)`,
      true,
    );
  }
  if (TypeValidationError.isInstance(error)) {
    return new ModelError(
      `${provider} sent a stream chunk of an unexpected shape${after}: ${clean(jsonText(error.value))} (transient)`,
      true,
    );
  }
  if (InvalidResponseDataError.isInstance(error)) {
    // The OpenAI-compatible provider's way of saying the stream closed before any finish reason.
    if (/ended without a finish reason/i.test(error.message))
      return unfinishedStreamError({ provider, partsReceived: partsReceived ?? 0 });
    const data = error.data === undefined ? '' : `: ${clean(jsonText(error.data))}`;
    return new ModelError(
      `${provider} sent invalid stream data${after} (${clean(error.message)})${data} (transient)`,
      true,
    );
  }

  if (APICallError.isInstance(error)) {
    const frame = streamFrameOf(error);
    if (frame)
      return streamErrorOf({ provider, frame, fallbackMessage: error.message, partsReceived, clean });
    const status = error.statusCode;
    const detail = clean(error.message);
    if (status === undefined || status < 400) {
      // No status: the connection failed. A 2xx: the response broke while streaming (the SDK wraps
      // a dropped socket as "Failed to process successful response", status 200, cause `terminated`).
      const network = findNetworkError(error);
      const retryable = error.isRetryable || network !== undefined;
      const what =
        status === undefined
          ? `${provider} request failed: ${detail}${network ? ` (${network})` : ''}`
          : `${provider} response stream broke: ${network ?? detail}`;
      return new ModelError(`${what}${retryable ? ' (transient)' : ''}`, retryable);
    }
    return httpErrorOf({ provider, error, status, clean, now });
  }

  if (isUnreadableFirstChunk(error)) {
    return new ModelError(
      `${provider} sent a first stream chunk it could not read (the provider keeps no copy to quote) (transient)`,
      true,
    );
  }

  if (isTimeout(error)) return new ModelError(`${provider} request timed out`, true);
  const network = findNetworkError(error);
  if (network) {
    return new ModelError(
      `${provider} connection failed: ${clean(messageOf(error))} (${network}; transient)`,
      true,
    );
  }

  const frame = streamFrameOf(error);
  if (frame)
    return streamErrorOf({ provider, frame, fallbackMessage: messageOf(error), partsReceived, clean });
  return new ModelError(`${provider} error: ${clean(messageOf(error))}`, false);
}

/**
 * A provider's answer with an error status. Its documented code decides first (`insufficient_quota`
 * comes with a 429 that waiting does not cure), then the status, unless the provider package marks
 * a retryable status final.
 */
function httpErrorOf({
  provider,
  error,
  status,
  clean,
  now,
}: {
  provider: string;
  error: APICallError;
  status: number;
  clean: (text: string) => string;
  now: () => number;
}): ModelError {
  const label = `HTTP ${status}${statusNames.has(status) ? ` ${statusNames.get(status)}` : ''}`;
  const report = readErrorReport(error.data ?? parseBody(error.responseBody));
  const verdict = providerVerdict(report);
  const [code] = report?.codes ?? [];
  const detail = `${code ? `${code}: ` : ''}${clean(error.message)}`;
  const rejected = `${provider} rejected the request with ${label}: ${detail}`;
  if (verdict?.kind === 'context-overflow')
    return new ModelError(`${rejected} (${contextOverflowSaying}; not retried)`, false, undefined, {
      kind: 'context-overflow',
    });
  const retryableStatus = status >= 500 || retryableStatuses.has(status);
  if (verdict?.kind === 'rejected' && !(verdict.generic && retryableStatus))
    return new ModelError(`${rejected} (not retried: ${verdict.why})`, false);
  if (verdict?.kind === 'transient' || (retryableStatus && error.isRetryable)) {
    return new ModelError(
      `${provider} answered ${label}: ${detail}`,
      true,
      parseRetryAfter(error.responseHeaders, now),
    );
  }
  const hint = retryableStatus
    ? 'the provider marks it final'
    : (fixHints.get(status) ?? 'fix the request or the model configuration');
  return new ModelError(`${rejected} (not retried; ${hint})`, false);
}

/**
 * The stream closed normally but the provider never said why it stopped (no finish reason, no
 * `[DONE]`, no `message_stop`): the response is cut short as surely as by a reset, so it is
 * retried like one.
 */
export function unfinishedStreamError({
  provider = 'model provider',
  partsReceived,
}: {
  provider?: string;
  partsReceived: number;
}): ModelError {
  return new ModelError(
    `${provider} stream ended without a finish reason after ${plural(partsReceived, 'part')} (transient)`,
    true,
  );
}

/**
 * Milliseconds to wait, from `retry-after-ms` (milliseconds) or `retry-after` (seconds, or an HTTP
 * date). Undefined when the server did not say or said something unreadable.
 */
export function parseRetryAfter(
  headers: Record<string, string> | undefined,
  now: () => number = Date.now,
): number | undefined {
  if (!headers) return undefined;
  const header = (name: string) => {
    for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value.trim();
    return undefined;
  };
  const ms = header('retry-after-ms');
  if (ms !== undefined && ms !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0)
    return Math.ceil(Number(ms));
  const after = header('retry-after');
  if (after === undefined || after === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(after)) return Math.ceil(Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now());
}

function isAbort(error: unknown): boolean {
  const name = errorLike(error)?.name;
  return name === 'AbortError' || name === 'ResponseAborted';
}

/**
 * `@ai-sdk/anthropic` 4 peeks at the first chunk before handing the stream over; when that chunk
 * is not JSON or not of the expected shape, it throws this bare `Error`, dropping the parse error
 * and the chunk. Malformed like a garbage chunk later on, so as transient.
 */
function isUnreadableFirstChunk(error: unknown): boolean {
  const like = errorLike(error);
  return like?.name === 'Error' && /^Expected a normalized \w+ stream error$/.test(like.message);
}

function isTimeout(error: unknown): boolean {
  return errorLike(error)?.name === 'TimeoutError';
}

/** The network error code somewhere in the cause chain (undici reports a dropped socket as `TypeError: terminated`). */
function findNetworkError(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  let current = error;
  while (typeof current === 'object' && current !== null && !seen.has(current)) {
    seen.add(current);
    const code = 'code' in current ? current.code : undefined;
    if (typeof code === 'string' && networkErrorCodes.has(code)) return `connection lost: ${code}`;
    const like = errorLike(current);
    if (like?.name === 'TypeError' && /^(terminated|fetch failed|failed to fetch)$/i.test(like.message))
      return 'connection lost';
    current = 'cause' in current ? current.cause : undefined;
  }
  return undefined;
}

function messageOf(error: unknown): string {
  const like = errorLike(error);
  if (like) return like.message || like.name;
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null) {
    const nested =
      'error' in error && typeof error.error === 'object' && error.error !== null ? error.error : error;
    if ('message' in nested && typeof nested.message === 'string') return nested.message;
    try {
      return JSON.stringify(error);
    } catch {
      return String(error);
    }
  }
  return String(error);
}

/** Provider text cut to a readable length, saying how much was left out. */
function quote(text: string): string {
  if (text.length <= maxQuotedChars) return text;
  return `${text.slice(0, maxQuotedChars)}… (${text.length - maxQuotedChars} more characters)`;
}

function jsonText(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  return out.replace(/\b(sk|rk)-[A-Za-z0-9_-]{8,}/g, '[redacted]');
}

/**
 * Duck-typed, not `instanceof Error`: errors thrown by Node's own fetch come from another realm
 * under some runners (jest's VM context), where `instanceof` says no.
 */
function errorLike(value: unknown): { name: string; message: string } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { name, message } = value as { name?: unknown; message?: unknown };
  return typeof name === 'string' &&
    typeof message === 'string' &&
    (value instanceof Error || 'stack' in value)
    ? { name, message }
    : undefined;
}

import { APICallError } from '@ai-sdk/provider';
import { ModelError } from '../core';
import { type ProviderErrorReport, parseBody, readErrorReport } from './provider-error-report';
import { providerVerdict } from './provider-verdict';

/** Statuses worth asking again for: timeout, conflict (a request with this idempotency key is in flight), rate limit. */
export const retryableStatuses = new Set([408, 409, 429]);

/** How a context overflow is said, after the provider's own words. */
export const contextOverflowSaying =
  "context overflow: the conversation is longer than the model's context window";

/** What a provider's in-stream error frame came as, read from whichever form its AI SDK package chose. */
export interface StreamFrame {
  report: ProviderErrorReport | undefined;
  /** The provider package's own verdict, when it gave one. */
  sdkRetryable?: boolean;
}

/**
 * The in-stream error frame behind `error`, when it came from one: the server answered 2xx with an
 * event stream, then sent an error event. The providers hand it on in two forms. Before any output
 * `@ai-sdk/openai` (3 and 4) and `@ai-sdk/anthropic` (3 and 4) throw an `APICallError` carrying a
 * status they made up from the frame's code (429 for `insufficient_quota`, 500 for an unknown one)
 * — told apart from a real HTTP error by the event-stream response it came with. After output, and
 * with `@ai-sdk/openai-compatible` always, it is a plain object: the frame's `{ message, type, code }`,
 * to which `@ai-sdk/openai` 4, `@ai-sdk/anthropic` 4 and the Responses model of `@ai-sdk/openai` 3
 * add their verdict `isRetryable` (and a made-up `statusCode`, never read here).
 */
export function streamFrameOf(error: unknown): StreamFrame | undefined {
  if (APICallError.isInstance(error)) {
    // A dropped stream comes as an APICallError too, with the real 200: not a frame.
    if ((error.statusCode ?? 0) < 400 || !isEventStream(error.responseHeaders)) return undefined;
    return {
      report: readErrorReport(error.data ?? parseBody(error.responseBody)),
      sdkRetryable: error.isRetryable,
    };
  }
  if (typeof error !== 'object' || error === null || error instanceof Error || 'stack' in error)
    return undefined;
  const sdkRetryable =
    'isRetryable' in error && typeof error.isRetryable === 'boolean' ? error.isRetryable : undefined;
  const report = readErrorReport(error);
  if (!report && sdkRetryable === undefined) return undefined;
  return { report, ...(sdkRetryable !== undefined ? { sdkRetryable } : {}) };
}

/**
 * An in-stream error, said as one: the provider's code and message, never an HTTP status (the
 * server answered 2xx). The provider's documented code decides first (the v3 Anthropic package
 * calls every first-chunk error but `overloaded_error` final, `api_error` and rate limits included),
 * then the package's own verdict, then a status the provider wrote into the frame. A frame that says
 * nothing readable is retried: only the provider's verdict stops retries.
 */
export function streamErrorOf({
  provider,
  frame: { report, sdkRetryable },
  fallbackMessage,
  partsReceived,
  clean,
}: {
  provider: string;
  frame: StreamFrame;
  fallbackMessage: string;
  /** Stream parts handed on before it, when it came mid-stream. */
  partsReceived: number | undefined;
  clean: (text: string) => string;
}): ModelError {
  const verdict = providerVerdict(report);
  const status = report?.statusInFrame;
  const code = report?.codes[0] ?? (status === undefined ? undefined : String(status));
  const after = partsReceived ? ` after ${partsReceived} part${partsReceived === 1 ? '' : 's'}` : '';
  const said = `${provider} stream error${code ? ` ${code}` : ''}${after}: ${clean(report?.message ?? fallbackMessage)}`;
  if (verdict?.kind === 'context-overflow')
    return new ModelError(`${said} (${contextOverflowSaying}; not retried)`, false, undefined, {
      kind: 'context-overflow',
    });
  if (verdict?.kind === 'rejected') return new ModelError(`${said} (not retried: ${verdict.why})`, false);
  if (verdict?.kind === 'transient') return new ModelError(`${said} (transient)`, true);
  // A verdict the package drew from a frame it read; without one (a garbage first chunk Anthropic
  // 3 wrapped as a "500", final) there was no frame to judge by.
  if (report && sdkRetryable === false)
    return new ModelError(`${said} (not retried: the provider marks it final)`, false);
  if (sdkRetryable === undefined && status !== undefined && status < 500 && !retryableStatuses.has(status))
    return new ModelError(`${said} (not retried: its error frame says ${status})`, false);
  return new ModelError(`${said} (transient)`, true);
}

function isEventStream(headers: Record<string, string> | undefined): boolean {
  if (!headers) return false;
  for (const [name, value] of Object.entries(headers))
    if (name.toLowerCase() === 'content-type') return value.toLowerCase().startsWith('text/event-stream');
  return false;
}

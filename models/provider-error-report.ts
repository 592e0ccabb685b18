/** What a provider wrote about a failure, in an error body or an in-stream error frame. */
export interface ProviderErrorReport {
  /** Its machine-readable codes, most specific first: `code`, then `type` (`tool_use_failed`, `invalid_request_error`). */
  codes: string[];
  /** A status the provider wrote into the body or frame itself (OpenRouter's `"code": 400`, vLLM's). */
  statusInFrame?: number;
  message?: string;
}

/**
 * Reads the codes and message out of the shapes providers use: `{ error: { message, type, code } }`
 * (OpenAI and OpenAI-compatible servers), `{ type: 'error', error: { type, message } }` (Anthropic,
 * the Responses API's `error` event), `{ type: 'response.failed', response: { error } }`, a bare
 * `{ message, type, code }` (what the AI SDK providers hand on from a frame) and `{ error: '…' }`
 * (Ollama). Undefined when nothing there reads as an error report.
 */
export function readErrorReport(value: unknown): ProviderErrorReport | undefined {
  const outer = asRecord(value);
  if (!outer) return undefined;
  const failed = outer.type === 'response.failed' ? asRecord(asRecord(outer.response)?.error) : undefined;
  const inner = failed ?? asRecord(outer.error) ?? outer;
  const codes: string[] = [];
  let statusInFrame: number | undefined;
  for (const field of [inner.code, inner.status_code, inner.type]) {
    if (typeof field === 'string' && field !== '' && field !== 'error' && !/^\d{3}$/.test(field))
      codes.push(field);
    else if (statusInFrame === undefined) statusInFrame = statusOf(field);
  }
  const message =
    typeof inner.message === 'string'
      ? inner.message
      : typeof outer.error === 'string'
        ? outer.error
        : undefined;
  if (codes.length === 0 && statusInFrame === undefined && message === undefined) return undefined;
  return {
    codes,
    ...(statusInFrame !== undefined ? { statusInFrame } : {}),
    ...(message ? { message } : {}),
  };
}

/** A JSON body as a value, or undefined when it is not JSON. */
export function parseBody(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function statusOf(value: unknown): number | undefined {
  const status = typeof value === 'string' && /^\d{3}$/.test(value) ? Number(value) : value;
  return typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599
    ? status
    : undefined;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

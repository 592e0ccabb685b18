import { errorMessage } from './error-message';
import { TemporalSetupError } from './temporal-setup-error';

/**
 * GETs `url`, following redirects (GitHub serves release assets from a redirected storage host),
 * and returns the response only if it is a success with a body. Every failure, an unreachable host
 * or an HTTP error, is a TemporalSetupError that names the URL.
 */
export async function downloadResponse({
  url,
  signal,
}: {
  url: string;
  signal?: AbortSignal;
}): Promise<{ response: Response; body: ReadableStream<Uint8Array> }> {
  let response: Response;
  try {
    response = await fetch(url, { redirect: 'follow', signal });
  } catch (error) {
    // fetch says only "fetch failed"; the cause says why (ECONNREFUSED, ENOTFOUND, a TLS problem).
    // An abort rejects with the signal's reason itself, which has no cause.
    const cause = typeof error === 'object' && error !== null && 'cause' in error ? error.cause : undefined;
    const reason = cause === undefined ? errorMessage({ error }) : errorMessage({ error: cause });
    throw new TemporalSetupError(`Could not download ${url}: ${reason}.`, { cause: error });
  }
  if (!response.ok || response.body === null) {
    await response.body?.cancel();
    const status = [response.status, response.statusText].filter(Boolean).join(' ');
    throw new TemporalSetupError(`Could not download ${url}: the server answered HTTP ${status}.`);
  }
  return { response, body: response.body };
}

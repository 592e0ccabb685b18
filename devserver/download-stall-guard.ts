import { formatDuration } from './format-duration';

export interface DownloadStallGuard {
  /** Aborts the request once no data has come for the stall time. */
  signal: AbortSignal;
  /** Data came: the stall time starts again. */
  touch: () => void;
  stop: () => void;
}

/**
 * Gives up on a download that stops moving. Without it a proxy that swallows the connection leaves
 * a person looking at "Downloading …" for the five minutes of fetch's own timeouts; a total time
 * limit instead would cut off a slow but healthy ~50 MB download.
 */
export function downloadStallGuard({ stallTimeoutMs }: { stallTimeoutMs: number }): DownloadStallGuard {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error(`no data arrived for ${formatDuration({ ms: stallTimeoutMs })}`)),
    stallTimeoutMs,
  );
  // refresh() restarts the same timer: cheap enough to call for every chunk.
  return { signal: controller.signal, touch: () => timer.refresh(), stop: () => clearTimeout(timer) };
}

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
export function pause({ ms, signal }: { ms: number; signal: AbortSignal | undefined }): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

import { sleep } from '../../conformance/support';

/**
 * Asks `probe` again and again until it returns something other than `undefined` — for state that
 * arrives eventually (visibility, a query answered after the next workflow task). Throws with
 * `what` and the last value seen when it never does, instead of hanging the test.
 */
export async function pollFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  { timeoutMs = 15_000, intervalMs = 100 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await sleep(intervalMs);
  }
}

/** Everything an async iterable yields (e.g. a visibility list). */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** An error's message and the messages of its causes, joined: Temporal wraps the useful one. */
export function messageChain(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  while (current instanceof Error && parts.length < 10) {
    parts.push(current.message);
    current = current.cause;
  }
  return parts.join(' <- ');
}

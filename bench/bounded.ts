/** Runs `fn` over `items` with at most `limit` calls in flight, results in the items' order. */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/** Polls `probe` every `intervalMs` until it returns true; throws after `timeoutMs`. */
export async function pollUntil(
  what: string,
  probe: () => Promise<boolean>,
  { intervalMs = 100, timeoutMs = 600_000 } = {},
): Promise<void> {
  const started = performance.now();
  while (!(await probe())) {
    if (performance.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

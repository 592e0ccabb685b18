/**
 * Subscribes to a signal's abort in O(1). A turn's calls all share one signal, and an
 * EventTarget checks every listener it holds on each add and remove, so a wave of a thousand
 * attempts each listening directly costs time quadratic in the wave. Here each signal gets one
 * real listener, which fans out to a set.
 */
const subscribers = new WeakMap<AbortSignal, Set<() => void>>();

/** Calls `fn` once when `signal` aborts (at once if it already has); returns the unsubscribe. */
export function onAbort(signal: AbortSignal, fn: () => void): () => void {
  if (signal.aborted) {
    fn();
    return noop;
  }
  let set = subscribers.get(signal);
  if (!set) {
    const created = new Set<() => void>();
    set = created;
    subscribers.set(signal, created);
    signal.addEventListener(
      'abort',
      () => {
        subscribers.delete(signal);
        for (const subscriber of created) subscriber();
      },
      { once: true },
    );
  }
  set.add(fn);
  const subscribed = set;
  return () => {
    subscribed.delete(fn);
  };
}

const noop = () => {};

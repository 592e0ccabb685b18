/** Marks our own signal listeners, across copies of this module, to tell them from the host's. */
const ownListener = Symbol.for('durable-turns.guardProcessGroup');
const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Makes sure a detached child process group (the dev server) does not outlive this process.
 * A detached child has its own process group, so Ctrl-C in a terminal no longer reaches it and
 * nothing else would stop it. Returns `release`, to call once the child is stopped.
 *
 * - On `exit` the group gets SIGTERM (only synchronous work is possible there).
 * - On SIGINT/SIGTERM/SIGHUP, if the host listens too (a Temporal Worker draining, a CLI), the host
 *   owns shutdown and the `exit` hook ends the server when the process ends. If only we listen, we
 *   must not swallow the signal: we stop the group, remove ourselves and raise the signal again so
 *   Node's default (exit) happens.
 *
 * A SIGKILL of this process cannot be caught; the server then keeps running until stopped by hand.
 */
export function guardProcessGroup({ pid }: { pid: number }): () => void {
  const terminate = () => {
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      // Already gone: nothing to stop.
    }
  };

  const onSignal = Object.assign(
    (signal: NodeJS.Signals) => {
      const hostListens = process.listeners(signal).some((listener) => !(ownListener in listener));
      if (hostListens) return;
      terminate();
      release();
      // Several guarded servers each get the signal; the last one to let go raises it again.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    },
    { [ownListener]: true },
  );

  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off('exit', terminate);
    for (const signal of signals) process.off(signal, onSignal);
  };

  process.on('exit', terminate);
  for (const signal of signals) process.on(signal, onSignal);
  return release;
}

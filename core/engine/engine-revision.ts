/**
 * The rules a turn runs under, recorded in `turn.started` so a turn keeps them for its whole life
 * (turns last days, and hosts upgrade under them). Revision 3:
 * - a call stopped by a halt (cancel, budget, loop stop) or a background stop while it would be tried
 *   again is `interrupted`, whether it waited for its retry or its attempt failed retryably after
 *   the stop, and its output quotes its last attempt's error as context (revision 2 recorded the
 *   late failure as the call's `error`, as if it had finished, and a waiting call without it).
 *
 * Revision 2:
 * - idempotency keys escape their parts (injective; see `toolCallKey`);
 * - a cancel leaves running calls running until their attempt ends, and records what came back:
 *   a call that finished its effect after the cancel is reported as done, not as interrupted;
 * - on Temporal, the engine decides model-request retries and lost tool attempts (revision 1
 *   left them to Temporal's activity retry policies).
 */
export const engineRevision = 3;

/** At most this many lost attempts of one retry-safe call are run again (a call that kills its worker must not loop). */
export const maxLostAttemptReruns = 3;

/**
 * The wait before running again an attempt whose host could not read it (the `n`th such in a row):
 * 1 s, doubling, at most a minute — a worker with the key usually takes it at once, and a fleet
 * with none is not hammered.
 */
export function notStartedDelay(n: number): number {
  return Math.min(1_000 * 2 ** (n - 1), 60_000);
}

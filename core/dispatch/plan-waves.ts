import type { CallPolicy } from '../schema/prepared-call';

export interface PlannableCall {
  policy: Pick<CallPolicy, 'concurrencySafe' | 'resources'>;
}

/**
 * Splits a batch (the calls of one response, in model order) into waves: contiguous runs that may
 * run together. A concurrency-safe call joins the current wave unless one of its resources is
 * already taken in that wave; a call that is not concurrency-safe is a wave of its own and a
 * barrier, so model order holds across every unsafe call (a later read never jumps an earlier write).
 *
 * Waves are contiguous, so planning a prefix of a batch gives a prefix of the plan: a call that
 * arrives later in a stream only ever extends the last wave or opens a new one.
 *
 * Returns the wave number of each call, by position.
 */
export function planWaves(calls: readonly PlannableCall[], mode: 'parallel' | 'sequential'): number[] {
  const waveOf: number[] = [];
  let wave = -1;
  let open = false;
  let taken = new Set<string>();
  for (const call of calls) {
    const safe = mode === 'parallel' && call.policy.concurrencySafe;
    const conflicts = call.policy.resources.some((key) => taken.has(key));
    if (!safe || !open || conflicts) {
      wave += 1;
      taken = new Set();
      open = safe;
    }
    for (const key of call.policy.resources) taken.add(key);
    waveOf.push(wave);
  }
  return waveOf;
}

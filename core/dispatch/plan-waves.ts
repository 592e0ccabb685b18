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
  const planner = new WavePlanner(mode);
  return calls.map((call) => planner.add(call));
}

/**
 * The same plan, one call at a time: what a stream needs, where calls arrive one by one and
 * re-planning the whole prefix for each would cost the square of the batch.
 */
export class WavePlanner {
  private wave = -1;
  private open = false;
  private readonly taken = new Set<string>();

  constructor(private readonly mode: 'parallel' | 'sequential') {}

  /** Plans the next call of the batch; returns its wave. */
  add(call: PlannableCall): number {
    const safe = this.mode === 'parallel' && call.policy.concurrencySafe;
    const resources = call.policy.resources;
    let conflicts = false;
    for (const key of resources) if (this.taken.has(key)) conflicts = true;
    if (!safe || !this.open || conflicts) {
      this.wave += 1;
      if (this.taken.size > 0) this.taken.clear();
      this.open = safe;
    }
    for (const key of resources) this.taken.add(key);
    return this.wave;
  }
}

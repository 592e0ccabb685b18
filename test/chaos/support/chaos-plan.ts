import type { ScriptedResponse } from 'durable-turns';

/** mulberry32: a tiny seeded PRNG, so a failing run can be replayed from its seed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export const retrySafeTool = 'safe_effect';
export const unsafeTool = 'unsafe_effect';

/** The arguments of both chaos tools: how long the effect takes and whether it may join a wave. */
export interface EffectArgs {
  ms: number;
  parallel: boolean;
  /** Unique per call, so no two calls look alike to the loop detector. */
  tag: string;
}

/** One turn of the chaos run: its id, the model it asks (one per turn) and that model's script. */
export interface ChaosPlan {
  turnId: string;
  model: string;
  steps: ScriptedResponse[];
  /** Set on every other turn: it continues-as-new (carrying its state) while the kills go on. */
  continueAsNewAfterEvents?: number;
}

/**
 * Turns of several model responses, each a mix of retry-safe and non-retry-safe calls, waves of
 * concurrency-safe ones and barriers, lasting tens of ms to ~2 s; the last response is prose.
 * Calls stream in one by one, so a kill can also land while a response is being handed over.
 */
export function chaosPlans({
  random,
  turnIds,
}: {
  random: () => number;
  turnIds: readonly string[];
}): ChaosPlan[] {
  const between = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  return turnIds.map((turnId, t) => {
    const steps: ScriptedResponse[] = [];
    const responses = between(4, 6);
    for (let r = 0; r < responses; r++) {
      const toolCalls = Array.from({ length: between(1, 4) }, (_, c) => {
        const id = `t${t}r${r}c${c}`;
        const args: EffectArgs = {
          ms: random() < 0.5 ? between(20, 200) : between(500, 2_000),
          parallel: random() < 0.6,
          tag: id,
        };
        return {
          id,
          name: random() < 0.5 ? retrySafeTool : unsafeTool,
          args,
          delayMs: between(0, 150),
        };
      });
      steps.push({ toolCalls });
    }
    steps.push({ text: `turn ${t} done` });
    return { turnId, model: `chaos-${t}`, steps, ...(t % 2 === 1 ? { continueAsNewAfterEvents: 40 } : {}) };
  });
}

/** The longest a plan's tools would take run one after another: a bound for how long the turn works. */
export function serialWorkMs(plan: ChaosPlan): number {
  let total = 0;
  for (const step of plan.steps)
    for (const call of step.toolCalls ?? []) total += (call.args as EffectArgs).ms + (call.delayMs ?? 0);
  return total;
}

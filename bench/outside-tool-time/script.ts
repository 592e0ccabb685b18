/**
 * The scripted work both sides run: each model name is a turn's script, one step per model
 * response. The same JSON goes to our worker and to the peer's (BENCH_SCRIPTS), so neither side
 * can drift from the other.
 */

export const WAVE_CALLS = 8;
export const WAVE_TOOL_MS = 250;
/** Calls per response in the tool-heavy turn: our default maxConcurrency, so both run each batch at once. */
export const HEAVY_CALLS = 8;
export const HEAVY_RESPONSES = 3;
export const LONG_CALLS = 60;
export const CONCURRENT_TURNS = 20;
export const FINAL_TEXT = 'done';

export interface BenchCall {
  id: string;
  name: 'wait' | 'noop';
  args: { i: number; ms?: number };
}

/** A model response: tool calls, or the final text. */
export type BenchStep = { toolCalls: BenchCall[] } | { text: string };

export type ScriptName = 'text' | 'wave' | 'heavy1' | 'heavyN' | 'long60';

/** `batches[r]` no-op calls in response r (ids and arguments distinct across the turn), then the text. */
function noopTurn(batches: readonly number[]): BenchStep[] {
  let i = 0;
  const steps: BenchStep[] = batches.map((size, r) => ({
    toolCalls: Array.from({ length: size }, () => {
      const call: BenchCall = { id: `c${r}_${i}`, name: 'noop', args: { i } };
      i += 1;
      return call;
    }),
  }));
  return [...steps, { text: FINAL_TEXT }];
}

const times = (count: number, size: number) => Array.from({ length: count }, () => size);

export const scripts: Record<ScriptName, BenchStep[]> = {
  /** (c) No tools: one model response. */
  text: [{ text: FINAL_TEXT }],
  /** (a) One response asking for 8 concurrency-safe calls of 250 ms each, then the answer. */
  wave: [
    {
      toolCalls: Array.from({ length: WAVE_CALLS }, (_, i) => ({
        id: `w${i}`,
        name: 'wait',
        args: { ms: WAVE_TOOL_MS, i },
      })),
    },
    { text: FINAL_TEXT },
  ],
  /** (b) Three responses of one no-op call: the baseline the per-call cost is measured against. */
  heavy1: noopTurn(times(HEAVY_RESPONSES, 1)),
  /** (b) Three responses of 8 no-op calls. */
  heavyN: noopTurn(times(HEAVY_RESPONSES, HEAVY_CALLS)),
  /** (b) 60 responses of one no-op call each: the long agent loop whose history is weighed. */
  long60: noopTurn(times(LONG_CALLS, 1)),
};

export const callsOf = (name: ScriptName) =>
  scripts[name].reduce((n, step) => n + ('toolCalls' in step ? step.toolCalls.length : 0), 0);

export const responsesOf = (name: ScriptName) => scripts[name].length;

/** The scripts as the workers read them from their environment. */
export function parseScripts(json: string | undefined): Record<string, BenchStep[]> {
  if (!json) throw new Error('BENCH_SCRIPTS is not set');
  return JSON.parse(json) as Record<string, BenchStep[]>;
}

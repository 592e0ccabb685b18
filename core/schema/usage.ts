import { z } from 'zod';

export const usageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof usageSchema>;

export const zeroUsage: Usage = { inputTokens: 0, outputTokens: 0 };

/** The tokens a usage counts against a token budget, and what operators see as "tokens": input and output. */
export function totalTokens(usage: Usage): number {
  return usage.inputTokens + usage.outputTokens;
}

export function addUsage(a: Usage, b: Usage): Usage {
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens };
}

import type { TurnResult, TurnStateView } from '../../core';
import { formatMs } from './short-text';

/** `790 tokens (630 in, 160 out) · 3 responses · 5 tool calls · 2.1 s · budget left: 2 responses`. */
export function usageLine({ view }: { view: TurnStateView }): string {
  const { usage, spent, budgetLeft } = view;
  const parts = [
    `${spent.tokens} tokens (${usage.inputTokens} in, ${usage.outputTokens} out)`,
    plural({ n: spent.modelResponses, one: 'response' }),
    plural({ n: spent.toolCalls, one: 'tool call' }),
    formatMs({ ms: spent.wallTimeMs }),
  ];
  const left = [
    budgetLeft.modelResponses !== undefined && plural({ n: budgetLeft.modelResponses, one: 'response' }),
    budgetLeft.toolCalls !== undefined && plural({ n: budgetLeft.toolCalls, one: 'tool call' }),
    budgetLeft.tokens !== undefined && `${budgetLeft.tokens} tokens`,
    budgetLeft.wallTimeMs !== undefined && formatMs({ ms: budgetLeft.wallTimeMs }),
  ].filter((x): x is string => typeof x === 'string');
  return `${parts.join(' · ')}${left.length > 0 ? ` · budget left: ${left.join(', ')}` : ''}`;
}

function plural({ n, one }: { n: number; one: string }): string {
  return `${n} ${one}${n === 1 ? '' : 's'}`;
}

/** `790 tokens (630 in, 160 out) · 3 responses · 5 tool calls`: a finished turn, from its result. */
export function resultUsageLine({
  result,
}: {
  result: Pick<TurnResult, 'usage' | 'modelResponses' | 'toolCalls'>;
}): string {
  const { usage } = result;
  return [
    `${usage.inputTokens + usage.outputTokens} tokens (${usage.inputTokens} in, ${usage.outputTokens} out)`,
    plural({ n: result.modelResponses, one: 'response' }),
    plural({ n: result.toolCalls, one: 'tool call' }),
  ].join(' · ');
}

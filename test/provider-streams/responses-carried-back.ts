import type { Provider } from './corpus';
import { type Json, record, records } from './json-fields';

/**
 * How many of the model's earlier responses a request carries back: the step it asks for is one
 * more. Read from the body as a provider would see it, so a retried request asks for the same step
 * again and a later turn of the same conversation for the next one.
 */
export function responsesCarriedBack(provider: Provider, body: unknown): number {
  const request = record(body);
  if (provider === 'openai-responses') return modelOutputRuns(records(request.input)).length;
  return records(request.messages).filter((m) => m.role === 'assistant').length;
}

/** A Responses API input item the model wrote (an assistant message, a call, reasoning, a reference to one). */
export function isModelOutputItem(item: Json): boolean {
  return (
    item.role === 'assistant' ||
    item.type === 'function_call' ||
    item.type === 'reasoning' ||
    item.type === 'item_reference'
  );
}

/**
 * Responses input holds items, not messages: each run of model-written items is one response, and
 * its calls' outputs (or the next user message) end it.
 */
export function modelOutputRuns(input: readonly Json[]): Json[][] {
  const runs: Json[][] = [];
  let current: Json[] | undefined;
  for (const item of input) {
    if (!isModelOutputItem(item)) {
      current = undefined;
      continue;
    }
    if (!current) {
      current = [];
      runs.push(current);
    }
    current.push(item);
  }
  return runs;
}

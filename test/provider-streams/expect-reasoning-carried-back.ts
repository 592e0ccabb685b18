import type { Provider } from './corpus';
import { assistantMessage } from './expect-calls-paired';
import { type Json, record, records } from './json-fields';
import type { RecordedResponse } from './recorded-response';
import { modelOutputRuns } from './responses-carried-back';

/**
 * The follow-up request gives the provider back the reasoning of response `step` (1-based) as it
 * requires, with the metadata that lets it take the reasoning: as the providers document it.
 */
export function expectReasoningCarriedBack(
  provider: Provider,
  followUp: unknown,
  step: number,
  recorded: RecordedResponse,
): void {
  carryRules[provider](followUp, step, recorded);
}

type CarryRule = (followUp: unknown, step: number, recorded: RecordedResponse) => void;

/** Whether a response has reasoning its provider wants back. */
export function hasReasoningToCarry(provider: Provider, recorded: RecordedResponse): boolean {
  if (provider === 'openai-compatible') return deepSeekNeedsReasoningBack(recorded);
  return recorded.reasoningMetadata.length > 0;
}

/**
 * Anthropic: the assistant message opens with its `thinking` blocks (text and signature unmodified,
 * an empty text included) and `redacted_thinking` blocks (their data), in the order they came. With
 * tools and extended thinking, the API refuses the request otherwise.
 */
function expectAnthropicThinkingCarriedBack(
  followUp: unknown,
  step: number,
  recorded: RecordedResponse,
): void {
  const { messages, at } = assistantMessage(followUp, step);
  const expected = recorded.reasoningMetadata.flatMap((metadata): Json[] => {
    if (metadata.kind === 'anthropic-thinking')
      return [{ type: 'thinking', thinking: metadata.thinking, signature: metadata.signature }];
    if (metadata.kind === 'anthropic-redacted-thinking')
      return [{ type: 'redacted_thinking', data: metadata.data }];
    return [];
  });
  expect(records(messages[at]?.content).slice(0, expected.length)).toEqual(expected);
}

/**
 * OpenAI Responses with `store: false`: each reasoning item goes back whole — its id, its encrypted
 * content, its summary — first among the response's items, before the message and calls it led to
 * (OpenAI refuses a reasoning item without its following item, and finds no stored item by id).
 */
function expectResponsesReasoningCarriedBack(
  followUp: unknown,
  step: number,
  recorded: RecordedResponse,
): void {
  const input = records(record(followUp).input);
  const expected = recorded.reasoningMetadata.flatMap((metadata) =>
    metadata.kind === 'openai-reasoning-item' && metadata.encryptedContent !== undefined
      ? [
          {
            type: 'reasoning',
            id: metadata.id,
            encrypted_content: metadata.encryptedContent,
            summary: metadata.summary.map((text) => ({ type: 'summary_text', text })),
          },
        ]
      : [],
  );
  expect((modelOutputRuns(input)[step - 1] ?? []).slice(0, expected.length)).toEqual(expected);
  // Without storage there is nothing for a reference to point at.
  expect(input.filter((item) => item.type === 'item_reference').map((item) => item.id)).toEqual([]);
}

/**
 * DeepSeek's reasoner with tools: the assistant message of a tool-call round goes back with its
 * `reasoning_content`, as DeepSeek documents for thinking mode with tool calls.
 */
function expectDeepSeekReasoningCarriedBack(
  followUp: unknown,
  step: number,
  recorded: RecordedResponse,
): void {
  if (!deepSeekNeedsReasoningBack(recorded)) return;
  const { messages, at } = assistantMessage(followUp, step);
  expect(messages[at]?.reasoning_content).toBe(recorded.reasoning);
}

function deepSeekNeedsReasoningBack(recorded: RecordedResponse): boolean {
  return (
    (recorded.model ?? '').startsWith('deepseek') && recorded.calls.length > 0 && recorded.reasoning !== ''
  );
}

const carryRules: Record<Provider, CarryRule> = {
  anthropic: expectAnthropicThinkingCarriedBack,
  'openai-responses': expectResponsesReasoningCarriedBack,
  'openai-compatible': expectDeepSeekReasoningCarriedBack,
  // Chat completions has no way to send reasoning back: nothing to carry.
  'openai-chat': () => {},
};

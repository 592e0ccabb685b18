/**
 * Each wire format's stop reasons in durable-turns' words (the AI SDK's unified finish reasons,
 * which the turn records): why the model stopped, whatever the provider calls it.
 */
const finishReasons = {
  anthropic: {
    end_turn: 'stop',
    stop_sequence: 'stop',
    pause_turn: 'stop',
    tool_use: 'tool-calls',
    max_tokens: 'length',
    model_context_window_exceeded: 'length',
    refusal: 'content-filter',
  },
  'chat-completions': {
    stop: 'stop',
    tool_calls: 'tool-calls',
    function_call: 'tool-calls',
    length: 'length',
    content_filter: 'content-filter',
  },
} satisfies Record<string, Record<string, string>>;

/** A provider's stop reason in durable-turns' words; one it does not document is `other`. */
export function finishReasonIn(format: keyof typeof finishReasons, stopReason: string): string {
  const table: Record<string, string> = finishReasons[format];
  return Object.hasOwn(table, stopReason) ? table[stopReason]! : 'other';
}

import { scriptedModel } from 'durable-turns';

/** One wave: two quick calls, a slow retry-safe call and a slow call that is not retry-safe. */
export function crashScript() {
  return scriptedModel(
    [
      {
        toolCalls: [
          { id: 'fast1', name: 'safe_effect', args: { ms: 10 } },
          { id: 'fast2', name: 'safe_effect', args: { ms: 10 } },
          { id: 'slow_safe', name: 'safe_effect', args: { ms: 4_000 } },
          { id: 'slow_unsafe', name: 'unsafe_effect', args: { ms: 4_000 } },
        ],
      },
      { text: 'recovered' },
    ],
    'crash-script',
  );
}

/**
 * Two slow background calls, one retry-safe and one not; the model then answers without calls (the
 * turn waits for them), answers each delivery, and ends.
 */
export function crashBackgroundScript() {
  return scriptedModel(
    [
      {
        toolCalls: [
          { id: 'bg_safe', name: 'background_safe_effect', args: { ms: 4_000 } },
          { id: 'bg_unsafe', name: 'background_unsafe_effect', args: { ms: 4_000 } },
        ],
      },
      { text: 'waiting' },
      { text: 'noted' },
      { text: 'recovered' },
    ],
    'crash-background',
  );
}

/** One slow quick call (a local activity), then the final text. */
export function crashQuickScript() {
  return scriptedModel(
    [
      { toolCalls: [{ id: 'quick_safe', name: 'quick_safe_effect', args: { ms: 3_000 } }] },
      { text: 'recovered' },
    ],
    'crash-quick',
  );
}

/**
 * A conversation's turns: a message `go slow` runs one slow retry-safe call, then the turn answers;
 * any other message is answered at once.
 */
export function crashConversationScript() {
  return scriptedModel(
    [
      (request) => {
        const last = request.messages.at(-1);
        const text = last?.role === 'user' && typeof last.content === 'string' ? last.content : '';
        return text === 'go slow'
          ? { toolCalls: [{ id: 'slow_safe', name: 'safe_effect', args: { ms: 1_000 } }] }
          : { text: `answer to ${text}` };
      },
      { text: 'recovered' },
    ],
    'crash-conversation',
  );
}

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

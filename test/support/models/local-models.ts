import { createModel, type TurnModel } from 'durable-turns';

/** Provider options that turn Claude's extended thinking on (a 1,024-token budget). */
export const extendedThinking = { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } };

/** Claude (the real `@ai-sdk/anthropic` provider) against a local Messages server. */
export function claudeAt(
  baseURL: string,
  extra: { providerOptions?: Record<string, Record<string, unknown>> } = {},
): TurnModel {
  return createModel(
    {
      provider: 'anthropic',
      name: 'claude',
      model: 'claude-sonnet-4-5',
      baseURL,
      maxOutputTokens: 2048,
      ...extra,
    },
    { env: { ANTHROPIC_API_KEY: 'sk-ant-test-0123456789' } },
  );
}

/** A model behind an OpenAI-compatible chat server (`@ai-sdk/openai-compatible`). */
export function compatibleAt(baseURL: string, name = 'local'): TurnModel {
  return createModel(
    { provider: 'openai-compatible', name, model: 'm', baseURL, apiKeyEnv: 'LOCAL_KEY' },
    { env: { LOCAL_KEY: 'sk-local-0123456789' } },
  );
}

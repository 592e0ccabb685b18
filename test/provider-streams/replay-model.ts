import { createModel, type TurnModel } from 'durable-turns';
import type { Provider } from './corpus';

const apiKey = 'sk-replay-0123456789';

/**
 * The model a user would configure for the provider, pointed at the replay server, through the
 * public `createModel`. Responses turns keep no state at OpenAI (`store: false`, as under zero data
 * retention) and ask for encrypted reasoning: the strictest way to carry a turn across requests,
 * where every call and reasoning item must travel in the request itself.
 */
export function replayModel({
  provider,
  model = 'replayed-model',
  baseURL,
}: {
  provider: Provider;
  model?: string;
  baseURL: string;
}): TurnModel {
  const name = `replay-${provider}`;
  switch (provider) {
    case 'anthropic':
      return createModel({ provider, name, model, baseURL }, { env: { ANTHROPIC_API_KEY: apiKey } });
    case 'openai-chat':
      return createModel(
        { provider: 'openai', api: 'chat', name, model, baseURL },
        { env: { OPENAI_API_KEY: apiKey } },
      );
    case 'openai-responses':
      return createModel(
        {
          provider: 'openai',
          api: 'responses',
          name,
          model,
          baseURL,
          providerOptions: { openai: { store: false, include: ['reasoning.encrypted_content'] } },
        },
        { env: { OPENAI_API_KEY: apiKey } },
      );
    case 'openai-compatible':
      return createModel({ provider, name, model, baseURL });
    default: {
      const unexpected: never = provider;
      throw new Error(`no model for ${String(unexpected)}`);
    }
  }
}

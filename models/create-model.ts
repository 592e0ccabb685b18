import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV4, SharedV4ProviderOptions } from '@ai-sdk/provider';
import { z } from 'zod';
import type { TurnModel } from '../core';
import { aiSdkModel } from './ai-sdk-model';
import { type ModelConfig, modelConfigSchema } from './model-config';
import { ScriptedModel } from './scripted-model';

/**
 * Builds the model a config describes. The config is validated first (an error names the field);
 * an API key is read from the environment variable the config names, now, so a missing key fails
 * at worker start-up rather than on the first request, and the key never sits in the config.
 *
 * OpenAI goes through its chat-completions API (`openai.chat`), the wire format local servers
 * (vLLM, Ollama, llama.cpp) speak as well, unless the config asks for the Responses API.
 */
export function createModel(
  config: ModelConfig,
  { env = process.env }: { env?: Readonly<Record<string, string | undefined>> } = {},
): TurnModel {
  const parsed = modelConfigSchema.safeParse(config);
  if (!parsed.success) {
    throw new Error(`invalid model config:\n${z.prettifyError(parsed.error)}`);
  }
  const resolved = parsed.data;
  if (resolved.provider === 'scripted') return new ScriptedModel(resolved.steps, resolved.name);

  const readKey = (variable: string): string => {
    const key = env[variable]?.trim();
    if (!key) {
      throw new Error(
        `model ${JSON.stringify(resolved.name)} (${resolved.provider}) reads its API key from the environment variable ${variable}, which is not set; set it, or point apiKeyEnv at the variable that holds the key`,
      );
    }
    return key;
  };

  let model: LanguageModelV4;
  let apiKey: string | undefined;
  switch (resolved.provider) {
    case 'openai-compatible':
      apiKey = resolved.apiKeyEnv === undefined ? undefined : readKey(resolved.apiKeyEnv);
      model = createOpenAICompatible({
        name: 'openai-compatible',
        baseURL: resolved.baseURL,
        includeUsage: true,
        ...(resolved.structuredOutputs ? { supportsStructuredOutputs: true } : {}),
        ...(apiKey ? { apiKey } : {}),
      }).chatModel(resolved.model);
      break;
    case 'openai':
      apiKey = readKey(resolved.apiKeyEnv);
      {
        const openai = createOpenAI({ apiKey, ...(resolved.baseURL ? { baseURL: resolved.baseURL } : {}) });
        model = resolved.api === 'responses' ? openai.responses(resolved.model) : openai.chat(resolved.model);
      }
      break;
    case 'anthropic':
      apiKey = readKey(resolved.apiKeyEnv);
      model = createAnthropic({ apiKey, ...(resolved.baseURL ? { baseURL: resolved.baseURL } : {}) })(
        resolved.model,
      );
      break;
    default: {
      const unexpected: never = resolved;
      throw new Error(`unknown model provider in ${JSON.stringify(unexpected)}`);
    }
  }
  return aiSdkModel({
    name: resolved.name,
    model,
    ...(resolved.providerOptions
      ? { providerOptions: resolved.providerOptions as SharedV4ProviderOptions }
      : {}),
    ...(resolved.maxOutputTokens !== undefined ? { maxOutputTokens: resolved.maxOutputTokens } : {}),
    ...(resolved.temperature !== undefined ? { temperature: resolved.temperature } : {}),
    ...(apiKey ? { secrets: [apiKey] } : {}),
  });
}

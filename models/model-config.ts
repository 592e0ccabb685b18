import { z } from 'zod';
import type { ScriptedStep } from './scripted-model';

/**
 * Which model a worker talks to, as plain data (a config file, an environment variable, workflow
 * input). It never holds an API key: `apiKeyEnv` names the environment variable the key is read from
 * when the model is created, so the config can be logged or recorded safely.
 */
const apiKeyEnv = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
  message:
    'apiKeyEnv names the environment variable holding the key (e.g. OPENAI_API_KEY), not the key itself',
});

/** An http(s) API root; `localhost:11434` without a scheme would otherwise pass as a URL. */
const baseURL = z.url({
  protocol: /^https?$/,
  error: (issue) =>
    issue.input === undefined
      ? 'baseURL is required (the API root, e.g. http://localhost:11434/v1)'
      : 'baseURL must be an http:// or https:// URL, e.g. http://localhost:11434/v1',
});

const common = {
  /** How the model is named in events, metrics and the dashboard. */
  name: z.string().min(1),
  /** The provider's model id (`gpt-4.1-mini`, `claude-sonnet-4-5`, `qwen2.5:7b`, …). */
  model: z.string().min(1),
  maxOutputTokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  /** Passed to the AI SDK provider as `providerOptions`. */
  providerOptions: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
};

export const openAiCompatibleConfigSchema = z.object({
  provider: z.literal('openai-compatible'),
  ...common,
  /** The server's API root, e.g. `http://localhost:11434/v1` (Ollama), `http://localhost:8000/v1` (vLLM). */
  baseURL,
  /** Local servers often need no key; when set, the variable must be set. */
  apiKeyEnv: apiKeyEnv.optional(),
  /**
   * The server takes a JSON Schema as `response_format` (`json_schema`: vLLM, llama.cpp, Ollama,
   * LM Studio): a structured answer asked without tools sends the schema. Without it, only
   * `json_object`, with the schema in the instructions.
   */
  structuredOutputs: z.boolean().optional(),
});

export const openAiConfigSchema = z.object({
  provider: z.literal('openai'),
  ...common,
  /**
   * `chat` (chat completions, the default) or `responses` (the Responses API, which keeps the
   * conversation: with a turn's `continuation: 'since-receipt'` each request sends only what is new).
   */
  api: z.enum(['chat', 'responses']).default('chat'),
  baseURL: baseURL.optional(),
  apiKeyEnv: apiKeyEnv.default('OPENAI_API_KEY'),
});

export const anthropicConfigSchema = z.object({
  provider: z.literal('anthropic'),
  ...common,
  baseURL: baseURL.optional(),
  apiKeyEnv: apiKeyEnv.default('ANTHROPIC_API_KEY'),
});

export const scriptedConfigSchema = z.object({
  provider: z.literal('scripted'),
  name: z.string().min(1).optional(),
  steps: z.array(
    z.custom<ScriptedStep>(
      (step) => typeof step === 'function' || (typeof step === 'object' && step !== null),
      {
        message: 'a scripted step is a response object or a function of the request',
      },
    ),
  ),
});

export const modelConfigSchema = z.discriminatedUnion('provider', [
  openAiCompatibleConfigSchema,
  openAiConfigSchema,
  anthropicConfigSchema,
  scriptedConfigSchema,
]);

/** A model config as written by a user (defaults not yet applied). */
export type ModelConfig = z.input<typeof modelConfigSchema>;
/** A validated model config with defaults applied. */
export type ResolvedModelConfig = z.output<typeof modelConfigSchema>;

import { getModelCapabilities, supportsNativeStructuredOutputSchema } from '@ai-sdk/anthropic/internal';
import type { JSONSchema7, SharedV4ProviderOptions } from '@ai-sdk/provider';
import type { ModelRequest } from '../core';
import { whyNotStrict } from './strict-json-schema';
import type { JsonResponseFormat, SupportedLanguageModel } from './supported-language-model';
import type { PortablePrompt } from './to-language-model-prompt';

type Output = NonNullable<ModelRequest['output']>;

/** How one request asks for the turn's structured answer. */
export interface StructuredOutputAsk {
  /** The JSON response format the provider is given, when it is given one. */
  responseFormat?: JsonResponseFormat;
  /** The call's provider options, with what the ask adds to them. */
  providerOptions?: SharedV4ProviderOptions | undefined;
  /** A system instruction with the schema, when the request would not carry it to the model. */
  instruction?: string;
}

/**
 * How a request asks its provider for the structured answer. The turn checks every answer against
 * the schema itself and asks again when it does not match, so what the provider enforces is a help,
 * never the check — and a way of asking that fails the request or keeps the model from calling the
 * turn's tools is worse than asking in words:
 *
 * - OpenAI (chat and Responses, and Azure): the schema as `json_schema`, strict (constrained
 *   decoding) only when it fits strict mode; otherwise `strictJsonSchema: false`, as strict mode
 *   refuses an optional field, a map or an unsupported keyword with HTTP 400. The provider's own
 *   `strictJsonSchema`, when the configuration sets it, stands.
 * - Anthropic: native structured output (`output_config.format`) where the model and schema allow
 *   it. Otherwise the provider forces a tool named `json` (`tool_choice: any`, parallel tool use
 *   off): with the turn's tools on offer that makes every response one tool call, so such a request
 *   asks in words instead; one without tools still gets the `json` tool.
 * - OpenAI-compatible servers: with tools, no response format at all (vLLM, llama.cpp and the like
 *   constrain the whole output to JSON, and the model can no longer call a tool); without, the
 *   provider's (`json_object`, or `json_schema` when the model is made with structured outputs).
 *   Whenever the schema is not sent, it is in the instruction.
 */
export function structuredOutputAsk({
  model,
  output,
  withTools,
  providerOptions,
}: {
  model: SupportedLanguageModel;
  output: Output;
  withTools: boolean;
  providerOptions: SharedV4ProviderOptions | undefined;
}): StructuredOutputAsk {
  const responseFormat: JsonResponseFormat = {
    type: 'json',
    schema: output.schema as JSONSchema7,
    ...(output.name ? { name: output.name } : {}),
  };
  const provider = model.provider;
  if (/^(openai|azure)\./.test(provider)) {
    // Azure's Responses model reads the `azure` options instead of `openai` ones when there are any.
    const key = provider.startsWith('azure') && providerOptions?.azure ? 'azure' : 'openai';
    return { responseFormat, providerOptions: loosened(providerOptions, key, output.schema) };
  }
  if (provider.startsWith('anthropic.')) {
    // A structuredOutputMode the configuration sets stands: the provider does what it was told.
    const mode = providerOptions?.anthropic?.structuredOutputMode;
    const chosen = mode === 'outputFormat' || mode === 'jsonTool';
    return withTools && !chosen && !anthropicAsksNatively(model.modelId, output.schema)
      ? { providerOptions, instruction: instructionFor(output, withTools) }
      : { responseFormat, providerOptions };
  }
  const structuredOutputs = compatibleStructuredOutputs(model);
  if (structuredOutputs !== undefined) {
    if (withTools) return { providerOptions, instruction: instructionFor(output, withTools) };
    if (!structuredOutputs)
      return { responseFormat, providerOptions, instruction: instructionFor(output, withTools) };
    return { responseFormat, providerOptions: loosened(providerOptions, 'openaiCompatible', output.schema) };
  }
  return { responseFormat, providerOptions };
}

/**
 * The call's provider options, with `strictJsonSchema: false` under `key` when strict mode would
 * refuse the schema — unless the configuration chose `strictJsonSchema` itself.
 */
function loosened(
  options: SharedV4ProviderOptions | undefined,
  key: string,
  schema: Record<string, unknown>,
): SharedV4ProviderOptions | undefined {
  const chosen = Object.values(options ?? {}).some((o) => o?.strictJsonSchema !== undefined);
  if (chosen || whyNotStrict(schema) === undefined) return options;
  return { ...options, [key]: { ...options?.[key], strictJsonSchema: false } };
}

/**
 * Whether `@ai-sdk/anthropic` (in its `auto` mode) asks natively, `output_config.format`, rather than
 * through its forced `json` tool — by the provider's own tables: its model capabilities, and its
 * check of the schema (no open objects, no recursion, few optional properties).
 */
function anthropicAsksNatively(modelId: string, schema: Record<string, unknown>): boolean {
  return (
    getModelCapabilities(modelId).supportsStructuredOutput &&
    supportsNativeStructuredOutputSchema(schema as JSONSchema7)
  );
}

/**
 * For `@ai-sdk/openai-compatible` chat models: whether the model was made with structured outputs
 * (`supportsStructuredOutputs`, sending the schema as `json_schema`). `undefined` for other models.
 */
function compatibleStructuredOutputs(model: SupportedLanguageModel): boolean | undefined {
  const flag: unknown = (model as { supportsStructuredOutputs?: unknown }).supportsStructuredOutputs;
  return typeof flag === 'boolean' ? flag : undefined;
}

/** The schema in words, for a request that does not carry it to the model. */
function instructionFor({ schema, name }: Output, withTools: boolean): string {
  const what = name ? `your final answer (${name})` : 'your final answer';
  const when = withTools ? ', once you call no more tools,' : '';
  return `Give ${what}${when} as only a JSON value matching this JSON Schema, with no other text: ${JSON.stringify(schema)}`;
}

/** The prompt with the instruction as a system message after the leading ones (Anthropic takes system messages only there). */
export function withInstruction(prompt: PortablePrompt, instruction: string | undefined): PortablePrompt {
  if (instruction === undefined) return prompt;
  const at = prompt.findIndex((message) => message.role !== 'system');
  const split = at < 0 ? prompt.length : at;
  return [...prompt.slice(0, split), { role: 'system', content: instruction }, ...prompt.slice(split)];
}

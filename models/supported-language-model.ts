import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3StreamPart,
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider';
import { v3Prompt, v4Prompt } from './spec-prompt';
import type { PortableFunctionTool, PortablePrompt } from './to-language-model-prompt';

/**
 * The AI SDK `LanguageModel` specs the port drives: v4, what AI SDK 7 providers implement
 * (`@ai-sdk/openai` 4.x, `@ai-sdk/anthropic` 4.x, `@ai-sdk/openai-compatible` 3.x), and v3, what
 * AI SDK 6 providers implement (`@ai-sdk/openai` 3.x, `@ai-sdk/anthropic` 3.x,
 * `@ai-sdk/openai-compatible` 2.x) — so an application need not upgrade its providers with us.
 */
export type SupportedLanguageModel = LanguageModelV4 | LanguageModelV3;

/** Stream parts of either spec; v4's are a superset of v3's in everything the port reads. */
export type SupportedStreamPart = LanguageModelV4StreamPart | LanguageModelV3StreamPart;

const supportedVersions: readonly string[] = [
  'v4',
  'v3',
] satisfies SupportedLanguageModel['specificationVersion'][];

/** A structured answer as both specs ask for it (the same shape in v3 and v4). */
export type JsonResponseFormat = Extract<
  NonNullable<LanguageModelV4CallOptions['responseFormat']>,
  { type: 'json' }
>;

/** The call options the port sends; its prompt is mapped to each spec's encoding of files when it is sent. */
export interface PortableCallOptions {
  prompt: PortablePrompt;
  tools?: PortableFunctionTool[];
  abortSignal?: AbortSignal;
  headers?: Record<string, string>;
  providerOptions?: SharedV4ProviderOptions;
  maxOutputTokens?: number;
  temperature?: number;
  /** A structured answer: JSON of this schema (the provider's native structured output). */
  responseFormat?: JsonResponseFormat;
}

/**
 * Refuses a model of another spec when the model is handed over, not on its first request: an AI
 * SDK 5 provider (v2) or one newer than this library would fail in ways that do not say why.
 */
export function assertSupportedLanguageModel({ model }: { model: SupportedLanguageModel }): void {
  // Read as unknown: the types already refuse other specs, but JavaScript callers and casts do not.
  const version: unknown = model.specificationVersion;
  if (typeof version === 'string' && supportedVersions.includes(version)) return;
  const which = `${String(model.provider)} model ${JSON.stringify(model.modelId)}`;
  throw new Error(
    `${which} implements AI SDK LanguageModel specification ${JSON.stringify(version)}; supported are "v4" (AI SDK 7 providers: @ai-sdk/openai 4.x, @ai-sdk/anthropic 4.x, @ai-sdk/openai-compatible 3.x) and "v3" (AI SDK 6 providers: @ai-sdk/openai 3.x, @ai-sdk/anthropic 3.x, @ai-sdk/openai-compatible 2.x); install a provider package of one of those majors`,
  );
}

/** One `doStream` call, under whichever spec the model implements. */
export async function openLanguageModelStream({
  model,
  options,
}: {
  model: SupportedLanguageModel;
  options: PortableCallOptions;
}): Promise<ReadableStream<SupportedStreamPart>> {
  if (model.specificationVersion === 'v4') {
    const v4: LanguageModelV4CallOptions = { ...options, prompt: v4Prompt(options.prompt) };
    return (await model.doStream(v4)).stream;
  }
  const v3: LanguageModelV3CallOptions = { ...options, prompt: v3Prompt(options.prompt) };
  return (await model.doStream(v3)).stream;
}

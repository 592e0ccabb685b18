import { z } from 'zod';

/**
 * What a provider attached to a part of its response, per provider name, as the AI SDK reports it
 * (`providerMetadata`): Anthropic's thinking `signature` and `redactedData`, OpenAI's reasoning
 * `itemId` and `reasoningEncryptedContent`, Gemini's thought signatures on tool calls, and so on.
 * It is kept with the part as received and goes back to the provider, unchanged, as the part's
 * `providerOptions`: a reasoning model needs it across a tool round trip.
 */
export const providerMetadataSchema = z.record(z.string(), z.record(z.string(), z.json()));

export type ProviderMetadata = z.infer<typeof providerMetadataSchema>;
